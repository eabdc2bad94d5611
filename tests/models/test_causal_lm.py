"""lecturekit.models.causal_lm: the left-to-right baseline cannot see the future."""

import torch

from lecturekit.models.bert import BertConfig
from lecturekit.models.causal_lm import CausalLM


def test_causal_lm_cannot_see_the_future():
    torch.manual_seed(0)
    lm = CausalLM(BertConfig.tiny(vocab_size=40)).eval()
    ids = torch.randint(5, 40, (2, 10))
    changed = ids.clone()
    changed[:, 6:] = 7
    a, _ = lm(ids)
    b, _ = lm(changed)
    torch.testing.assert_close(a[:, :6], b[:, :6])
    assert not torch.allclose(a[:, 6:], b[:, 6:])
