"""lecturekit.utils.checks: one home for input checks, each naming the argument and what it got."""

import numpy as np
import pytest
import torch

from lecturekit.utils.checks import (
    as_pair,
    check_choice,
    check_index,
    check_instance,
    check_non_negative_int,
    check_positive_int,
    check_positive_ints,
    check_range,
    check_seed,
    check_tensor,
    shape_of,
)


def test_shape_of_describes_what_was_given():
    assert shape_of(torch.zeros(2, 3)) == (2, 3)
    assert shape_of(np.zeros((4,))) == (4,)
    assert shape_of([1, 2]) == "list"


def test_integers():
    assert check_positive_int("n", 3) == 3 and check_positive_int("n", np.int64(3)) == 3
    assert check_non_negative_int("window", 0) == 0 and check_seed(7) == 7
    for bad in (0, -1, 1.0, True, "3"):
        with pytest.raises(ValueError, match=rf"n must be a positive integer, got {bad!r}"):
            check_positive_int("n", bad)
    with pytest.raises(ValueError, match="window must be a non-negative integer, got -1"):
        check_non_negative_int("window", -1)
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer, got 1\.5"):
        check_seed(1.5)
    assert check_positive_ints("dims", [4, 16]) == (4, 16)
    assert check_positive_ints("ns", range(1, 3)) == (1, 2)
    with pytest.raises(ValueError, match=r"dims\[1\] must be a positive integer, got 0"):
        check_positive_ints("dims", [4, 0])
    with pytest.raises(ValueError, match="dims must be a sequence of positive integers"):
        check_positive_ints("dims", "64")
    with pytest.raises(ValueError, match=r"dims must not be empty, got \[\]"):
        check_positive_ints("dims", [])


def test_choice_range_instance_and_pair():
    assert check_choice("kind", "a", ["a", "b"]) == "a"
    with pytest.raises(ValueError, match=r"kind='c' is not one of \['a', 'b'\]"):
        check_choice("kind", "c", ["a", "b"])
    assert check_range("p", 0, 0, 1, high_open=True) == 0.0
    for bad, interval in ((1.0, r"\[0, 1\)"), (float("nan"), r"\[0, 1\)"), ("0.5", r"\[0, 1\)")):
        with pytest.raises(ValueError, match=rf"p must be a number in {interval}, got"):
            check_range("p", bad, 0, 1, high_open=True)
    with pytest.raises(ValueError, match=r"lr must be a number in \(0, inf\], got 0"):
        check_range("lr", 0, 0, low_open=True)
    assert check_instance("config", 3, int) == 3
    with pytest.raises(ValueError, match="config must be a dict, got list"):
        check_instance("config", [], dict)
    assert as_pair("patch_size", 2) == (2, 2) and as_pair("patch_size", [2, 3]) == (2, 3)
    with pytest.raises(ValueError, match=r"an int or a pair \(height, width\), got \(1, 2, 3\)"):
        as_pair("patch_size", (1, 2, 3))
    with pytest.raises(ValueError, match="patch_size must be a positive integer, got 0"):
        as_pair("patch_size", (2, 0))


def test_tensors():
    x = torch.zeros(2, 3)
    assert check_tensor("x", x, 2) is x and check_tensor("x", x, min_ndim=1) is x
    with pytest.raises(
        ValueError, match=r"x must be a torch.Tensor of shape \(B, T, D\), got list"
    ):
        check_tensor("x", [1], 3, wanted="(B, T, D)")
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, D\), got \(2, 3\)"):
        check_tensor("x", x, 3, wanted="(B, T, D)")
    with pytest.raises(ValueError, match=r"x must have shape at least 3-D, got \(2, 3\)"):
        check_tensor("x", x, min_ndim=3)
    with pytest.raises(
        ValueError, match="x must be a floating-point tensor of shape 2-D, got dtype"
    ):
        check_tensor("x", torch.zeros(2, 3, dtype=torch.long), 2, floating=True)


def test_index():
    assert check_index("pad_id", 0, 46) == 0 and check_index("token", np.int64(45), 46) == 45
    for bad in (46, -1, 1.0, True):
        with pytest.raises(ValueError, match=rf"pad_id must be an integer in 0\.\.45, got {bad!r}"):
            check_index("pad_id", bad, 46)


def test_tensor_dtypes_and_sizes():
    from lecturekit.utils.checks import check_ids

    x = torch.zeros(2, 3)
    assert check_tensor("x", x, 2, floating=True, nonempty=True) is x
    with pytest.raises(
        ValueError,
        match=r"x must be a floating-point tensor .* got dtype torch\.int64 \(convert with x\.float\(\)\)",
    ):
        check_tensor("x", torch.zeros(2, 3, dtype=torch.long), 2, floating=True)
    with pytest.raises(
        ValueError,
        match=r"ids must be an integer tensor .* got dtype torch\.float32 \(convert with ids\.long\(\)\)",
    ):
        check_tensor("ids", x, integer=True)
    with pytest.raises(ValueError, match=r"ids must be an integer tensor .* got dtype torch\.bool"):
        check_tensor("ids", x.bool(), integer=True)
    with pytest.raises(ValueError, match=r"x must not have a dimension of size 0, got \(2, 0\)"):
        check_tensor("x", torch.zeros(2, 0), nonempty=True)
    with pytest.raises(ValueError, match=r"x must have dtype torch\.float64, got torch\.float32"):
        check_tensor("x", x, dtype=torch.float64)
    with pytest.raises(
        ValueError,
        match=r"x must be a torch\.Tensor of shape any, got list \(convert with torch\.as_tensor\)",
    ):
        check_tensor("x", [1.0, 2.0])
    ids = torch.tensor([[0, 4], [2, 3]])
    assert check_ids("input_ids", ids, 5, 2) is ids
    with pytest.raises(
        ValueError,
        match=r"input_ids must hold ids in 0\.\.3 \(a vocabulary of 4\), got values from 0 to 4",
    ):
        check_ids("input_ids", ids, 4)
    with pytest.raises(
        ValueError, match=r"input_ids must hold ids in 0\.\.4 .* got values from -1 to 0"
    ):
        check_ids("input_ids", torch.tensor([-1, 0]), 5)
    assert check_ids("input_ids", torch.zeros(0, dtype=torch.long), 5).numel() == 0  # empty: fine


def test_module_inputs():
    from torch import nn

    from lecturekit.utils.checks import check_input, module_dtype

    layer = nn.Linear(3, 2)
    assert module_dtype(layer) == torch.float32 and module_dtype(nn.ReLU()) == torch.float32
    assert module_dtype(nn.Linear(3, 2).double()) == torch.float64
    x = torch.zeros(4, 3)
    assert check_input("x", x, layer, 2) is x
    with pytest.raises(
        ValueError,
        match=r"x has dtype torch\.float64 but Linear's weights are torch\.float32: pass x\.float\(\) \(or convert the module with \.to\(torch\.float64\)\)",
    ):
        check_input("x", x.double(), layer)
    with pytest.raises(ValueError, match=r"x must be a floating-point tensor"):
        check_input("x", x.long(), layer)


def test_python_types_and_directories(tmp_path):
    from lecturekit.utils.checks import (
        check_bool,
        check_callable,
        check_str,
        check_strings,
        check_writable_dir,
    )
    from lecturekit.utils.config import ModelConfig

    with pytest.raises(
        ValueError,
        match=r"config must be a ModelConfig, got dict \(build one with ModelConfig\.from_dict\(d\) or ModelConfig\(\*\*d\)\)",
    ):
        check_instance("config", {"d_model": 4}, ModelConfig)
    assert check_str("text", "a b") == "a b" and check_str("text", "", allow_empty=True) == ""
    for bad, match in ((3, "text must be a string, got int"), ("  ", "text must not be empty")):
        with pytest.raises(ValueError, match=match):
            check_str("text", bad)
    assert check_strings("words", ("a", "b")) == ["a", "b"]
    assert check_strings("words", [], allow_empty=True) == []
    for bad, match in (
        (
            "a sentence",
            r"words must be a list of strings, got a single string 'a sentence' \(wrap it: \['a sentence'\]\)",
        ),
        ([], r"words must not be empty"),
        (["a", 3], r"words\[1\] must be a string, got int 3"),
        ({"a": 1}, r"words must be a list of strings, got dict"),
    ):
        with pytest.raises(ValueError, match=match):
            check_strings("words", bad)
    assert check_callable("fn", len) is len
    with pytest.raises(ValueError, match="fn must be callable, got int"):
        check_callable("fn", 3)
    assert check_bool("causal", False) is False
    with pytest.raises(ValueError, match="causal must be True or False, got 1"):
        check_bool("causal", 1)
    out = check_writable_dir("out", tmp_path / "new" / "dir")  # created
    assert out.is_dir()
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ValueError, match=r"out='.*file\.txt' is a file, not a directory"):
        check_writable_dir("out", tmp_path / "file.txt")
    with pytest.raises(ValueError, match=r"out='.*file\.txt/sub' cannot be written to"):
        check_writable_dir("out", tmp_path / "file.txt" / "sub")
    with pytest.raises(ValueError, match="out must be a path, got int"):
        check_writable_dir("out", 3)


def test_check_same_dtype():
    from lecturekit.utils.checks import check_same_dtype

    q, v = torch.zeros(2, 3), torch.zeros(2, 3, dtype=torch.float64)
    assert check_same_dtype("k", q, "q", q) is q
    with pytest.raises(
        ValueError,
        match=r"v must have the dtype of q \(torch\.float32\), got torch\.float64 "
        r"\(pass v\.float\(\)\)",
    ):
        check_same_dtype("v", v, "q", q)


def test_check_tensor_names_a_numpy_array():
    with pytest.raises(
        ValueError,
        match=r"x must be a torch\.Tensor of shape \(B, T\), got \(2, 3\) \(a numpy "
        r"ndarray: convert with torch\.from_numpy\)",
    ):
        check_tensor("x", np.zeros((2, 3)), 2, wanted="(B, T)")


def test_did_you_mean_names_close_matches_only():
    from lecturekit.utils.checks import did_you_mean

    names = ["bert_tiny", "causal_lm_tiny", "vit_digits"]
    assert did_you_mean("bert_tiy", names) == "; did you mean 'bert_tiny'?"
    assert did_you_mean("vit", names) == "; did you mean 'vit_digits'?"  # a part of a name
    assert did_you_mean("gpt2", names) == "" and did_you_mean("", names) == ""
    assert did_you_mean(3, names) == ""


def test_check_padding_mask_reads_bool_and_1_0_and_refuses_additive_masks():
    from lecturekit.utils.checks import check_padding_mask

    real = torch.tensor([[True, True, False]])
    assert check_padding_mask("pad", real, (1, 3)) is real
    for dtype in (torch.long, torch.float32):
        assert torch.equal(check_padding_mask("pad", real.to(dtype), (1, 3)), real)
    additive = torch.tensor([[0.0, 0.0, -torch.inf]])
    with pytest.raises(ValueError, match=r"got the value -inf \(pass pad == 0 for an additive"):
        check_padding_mask("pad", additive, (1, 3))
    with pytest.raises(ValueError, match="a row of all 0s"):
        check_padding_mask("pad", torch.zeros(1, 3), (1, 3))  # additive, nothing blocked
    with pytest.raises(ValueError, match=r"pad must have shape \(1, 3\) \(as the ids\)"):
        check_padding_mask("pad", torch.ones(1, 4, dtype=torch.bool), (1, 3))
    with pytest.raises(ValueError, match=r"pad must be a torch\.Tensor of shape \(1, 3\)"):
        check_padding_mask("pad", [[1, 1, 0]], (1, 3))


def test_check_lengths_and_as_token_ids():
    from lecturekit.utils.checks import as_token_ids, check_lengths

    lengths = torch.tensor([3, 1])
    assert check_lengths("src_len", lengths, 2, 3, minimum=1) is lengths
    with pytest.raises(ValueError, match=r"src_len must lie in 1\.\.3, got \[3, 0\]"):
        check_lengths("src_len", torch.tensor([3, 0]), 2, 3, minimum=1)
    with pytest.raises(ValueError, match=r"src_len must have shape \(2,\), got \(3,\)"):
        check_lengths("src_len", torch.tensor([3, 1, 1]), 2, 3)
    with pytest.raises(ValueError, match=r"src_len must be a torch\.Tensor .*torch\.as_tensor"):
        check_lengths("src_len", [3, 1], 2, 3)
    assert as_token_ids("ids", [4, 5], 6).tolist() == [4, 5]
    assert as_token_ids("ids", (i for i in [1]), 6).dtype == torch.long  # any iterable
    assert as_token_ids("ids", torch.tensor([1], dtype=torch.int32), 6).dtype == torch.long
    assert as_token_ids("ids", [], 6, allow_empty=True).numel() == 0
    with pytest.raises(ValueError, match="ids must hold at least one token id"):
        as_token_ids("ids", [], 6)
    with pytest.raises(ValueError, match=r"ids must hold ids in 0\.\.5 \(a vocabulary of 6\)"):
        as_token_ids("ids", [4, 6], 6)
    with pytest.raises(ValueError, match=r"ids must be a list of integer token ids, got \[1\.5\]"):
        as_token_ids("ids", [1.5], 6)


def test_check_word_counts():
    from collections import Counter

    from lecturekit.utils.checks import check_word_counts

    counts = Counter({"low": 5, "lower": 2})
    assert check_word_counts("word_counts", counts) is counts
    with pytest.raises(ValueError, match=r"got list \(count them first: collections\.Counter"):
        check_word_counts("word_counts", ["low", "lower"])
    with pytest.raises(ValueError, match="word_counts must not be empty"):
        check_word_counts("word_counts", {})
    with pytest.raises(ValueError, match=r"word_counts\['low'\] must be a positive integer"):
        check_word_counts("word_counts", {"low": 0})
    with pytest.raises(ValueError, match="a key 'lo w' that is not a word"):
        check_word_counts("word_counts", {"lo w": 1})
