"""Lecture 14's exercises: GPT, how it generates, and learning from the prompt.

14.1 top-k by hand (code: run against ``top_k_filter`` on random logits, ties included),
14.2 the nucleus by hand (code: run against ``top_p_filter``), 14.3 what temperature does
(hashed), 14.4 a GPT's parameters by formula (code: run against ``parameter_count`` on several
configs), 14.5 what the KV cache saves (hashed), 14.6 the in-context reader at k = 1 (hashed).
"""

from __future__ import annotations

import math

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    exercise,
    register,
    register_lecture,
    run_student,
)

register_lecture("14", "14_gpt_generation")


def _random_logits(generator: object, V: int, ties: bool) -> object:
    import torch

    logits = torch.randn(V, generator=generator)
    if ties:  # a few equal values, so the boundary of the kept set has ties
        logits = (logits * 2).round() / 2
    return logits


def _kept_of(got: object, V: int, what: str) -> list[bool]:
    """The kept set of a student's filtered logits: the entries that are not -inf."""
    import torch

    try:
        got = torch.as_tensor(got, dtype=torch.float64).flatten()
    except (TypeError, ValueError, RuntimeError):
        raise NotYet(f"{what}: return the filtered logits as a tensor of {V} numbers") from None
    if got.numel() != V:
        raise NotYet(f"{what}: your result has {got.numel()} entries, the logits have {V}")
    return (got > -math.inf).tolist()


def _compare_filters(answer: object, name: str, reference: object, settings: list) -> int:
    import torch

    generator = torch.Generator().manual_seed(14)
    cases = 0
    for V, setting, ties in settings:
        logits = _random_logits(generator, V, ties)
        what = f"your function on V={V} logits with {name}={setting}"
        got = run_student(answer, logits.clone(), setting, what=what)
        want = reference(logits[None], setting)[0]
        kept, wanted = _kept_of(got, V, what), (want > -math.inf).tolist()
        if sum(kept) != sum(wanted):
            raise NotYet(f"{what}: you keep {sum(kept)} tokens; the rule keeps a different "
                         "number")  # fmt: skip
        if kept != wanted:
            raise NotYet(f"{what}: you keep the right number of tokens, but not the right ones")
        survivors = torch.as_tensor(got, dtype=torch.float64).flatten()[torch.tensor(kept)]
        if not torch.allclose(survivors, logits.double()[torch.tensor(kept)]):
            raise NotYet(f"{what}: the kept tokens must keep their logits unchanged")
        cases += 1
    return cases


@exercise(
    "14.1",
    "top-k by hand",
    hints=(
        "Find the k-th largest logit (torch.topk(logits, k).values[-1]); every token whose "
        "logit is below it becomes -inf.",
        "Use >= for the boundary: a token tied with the k-th largest stays, so a few more than "
        "k may survive. The survivors keep their logits.",
    ),
)
def _top_k(answer: object) -> str:
    from lecturekit.generation import top_k_filter

    settings = [(10, 3, False), (10, 1, False), (20, 5, True), (8, 8, False), (30, 4, True)]
    cases = _compare_filters(answer, "k", top_k_filter, settings)
    return (
        f"your filter keeps the same tokens as lecturekit's top_k_filter on {cases} cases, "
        "ties at the boundary included: sampling then only ever picks one of the k best"
    )


@exercise(
    "14.2",
    "the nucleus by hand",
    hints=(
        "Sort the probabilities (softmax of the logits) from the largest down and add them "
        "up; the nucleus is the shortest run from the top whose sum reaches p.",
        "The most probable token is always kept, whatever p; the tokens outside the nucleus "
        "become -inf, those inside keep their logits.",
    ),
)
def _top_p(answer: object) -> str:
    from lecturekit.generation import top_p_filter

    settings = [(10, 0.9, False), (10, 0.5, False), (20, 0.75, False), (6, 1.0, False),
                (12, 0.01, False), (30, 0.95, False)]  # fmt: skip
    cases = _compare_filters(answer, "p", top_p_filter, settings)
    return (
        f"your nucleus equals lecturekit's top_p_filter on {cases} cases: a confident "
        "distribution keeps few tokens, a flat one many, for the same p"
    )


register(
    Exercise(
        "14.3",
        "what temperature does",
        hints=(
            "Divide every logit by T, then take the softmax: p_i = exp(l_i / T) / sum_j "
            "exp(l_j / T).",
            "T < 1 sharpens the distribution (the top token gains), T > 1 flattens it.",
        ),
        expected=Expected("floats", ("84a9d348cf9910344dfe", "ee86ff4c87e3eb9fd3b2"), 2),
        correct="{answer}: the same logits, a confident choice at T = 0.5 and nearly a coin "
        "flip at T = 2; as T -> 0 sampling becomes greedy search",
    )
)


@exercise(
    "14.4",
    "a GPT's parameters by formula",
    hints=(
        "Count one block first: two LayerNorms (a scale and a shift each), the attention's "
        "four D x D projections with biases, the MLP's D x 4D and 4D x D layers with biases.",
        "Then the embeddings: V x D tokens and P x D positions, and the final LayerNorm; the "
        "output layer is the token embedding again (tied), so it adds nothing.",
    ),
)
def _parameters(answer: object) -> str:
    from lecturekit.models.gpt import GPTConfig
    from lecturekit.models.size import parameter_count

    configs = [GPTConfig.tiny(vocab_size=450), GPTConfig.gpt2("small"),
               GPTConfig.gpt2("medium"), GPTConfig.tiny(num_layers=5, hidden_size=96,
               intermediate_size=384, num_heads=4, max_position=200, vocab_size=1000)]  # fmt: skip
    for c in configs:
        what = (f"your function on V={c.vocab_size}, P={c.max_position}, D={c.hidden_size}, "
                f"L={c.num_layers}")  # fmt: skip
        got = run_student(answer, c.vocab_size, c.max_position, c.hidden_size, c.num_layers,
                          what=what)  # fmt: skip
        try:
            got = int(got)
        except (TypeError, ValueError):
            raise NotYet(f"{what}: return a whole number") from None
        want = parameter_count(c)
        if got != want:
            side = "too many" if got > want else "too few"
            raise NotYet(f"{what}: {got:,} is {side}; count each piece of a block again")
    return (
        f"your formula gives parameter_count's number for {len(configs)} configs, GPT-2 "
        "small and medium included: the 12 L D^2 of the blocks dominates once D is large"
    )


register(
    Exercise(
        "14.5",
        "what the KV cache saves",
        hints=(
            "Without the cache every step feeds the whole prefix: the prompt, then the prompt "
            "and one token, ... ; add up the lengths of the n calls.",
            "With the cache the first call feeds the prompt and every later call one token.",
        ),
        expected=Expected("floats", ("c4e55ede558f8bd6cb5c", "a6d0a61c2a2edfafe1f6"), 0),
        correct="{answer} positions: the cache turns a quadratic amount of work into a linear "
        "one, which is why every served LLM keeps one",
    )
)

register(
    Exercise(
        "14.6",
        "the in-context reader at k = 1",
        hints=(
            "With one example, the query's category is the example's with probability 1 / "
            "ways: then the reader copies its label.",
            "Otherwise it knows the answer is not the label it saw, and guesses among the "
            "other n_labels - 1 labels.",
        ),
        expected=Expected("float", ("31c2b010614deeb7d5b8",), 2),
        correct="{answer}: one example already lifts the reader far above chance (1/6); the "
        "trained GPT's curve is compared with this ceiling",
    )
)
