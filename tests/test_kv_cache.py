"""lecturekit.kv_cache: one position per step equals the full forward pass."""

import pytest
import torch

from lecturekit.kv_cache import decoder_step, layer_step, project_memory
from lecturekit.layers import Decoder
from lecturekit.masking import causal_mask, key_padding_mask, padding_mask

D, H, FF = 16, 4, 32


@pytest.mark.parametrize("norm_first", [False, True])
def test_kv_cache_steps_equal_the_full_forward(norm_first):
    torch.manual_seed(0)
    decoder = Decoder(2, D, H, FF, norm_first=norm_first).eval()
    x, memory = torch.randn(3, 6, D), torch.randn(3, 7, D)
    memory_mask = key_padding_mask(padding_mask([7, 5, 3], 7))
    full, _, full_cross = decoder(x, memory, causal_mask(6), memory_mask)
    memory_kv, cache, outs = project_memory(decoder, memory), None, []
    for t in range(6):
        out_t, cache, cross_t = decoder_step(decoder, x[:, t : t + 1], memory_kv, cache,
                                             memory_mask)  # fmt: skip
        outs.append(out_t)
        for full_w, w in zip(full_cross, cross_t, strict=True):
            torch.testing.assert_close(w[:, :, 0], full_w[:, :, t], atol=1e-5, rtol=0)
    torch.testing.assert_close(torch.cat(outs, 1), full, atol=1e-5, rtol=0)
    assert cache[0][0].shape == (3, H, 6, D // H)  # keys of all 6 positions, layer 1
    with pytest.raises(ValueError, match=r"x_t must be \(B, 1, d_model=16\), got \(3, 2, 16\)"):
        layer_step(decoder.layers[0], x[:, :2], memory_kv[0])


def test_layer_step_rejects_a_wrong_input():
    layer = Decoder(1, D, H, FF).layers[0]
    with pytest.raises(ValueError, match=r"x_t must be \(B, 1, d_model=16\), got \(2, 3, 16\)"):
        layer_step(layer, torch.zeros(2, 3, D), (torch.zeros(2, H, 4, 4),) * 2)
    with pytest.raises(
        ValueError, match=r"x_t must be a torch.Tensor of shape \(B, 1, d_model=16\), got list"
    ):
        layer_step(layer, [0.0], (torch.zeros(2, H, 4, 4),) * 2)


def test_memory_of_one_source_broadcasts_over_hypotheses():
    """memory_kv of batch 1 with x_t of batch N (one source, N hypotheses) is legitimate: it
    equals the memory repeated N times."""
    torch.manual_seed(0)
    decoder = Decoder(1, D, H, FF).eval()
    memory, x_t = torch.randn(1, 5, D), torch.randn(3, 1, D)
    one = project_memory(decoder, memory)
    many = project_memory(decoder, memory.expand(3, 5, D))
    out_one, _, _ = decoder_step(decoder, x_t, one)
    out_many, _, _ = decoder_step(decoder, x_t, many)
    torch.testing.assert_close(out_one, out_many)
