"""Lecture 14b's exercises: GPT measured (optional notebook).

14b.1 a GPT's parameters by formula (code: run against ``parameter_count`` on several configs),
14b.2 what the KV cache saves (hashed), 14b.3 the in-context reader at k = 1 (hashed).
"""

from __future__ import annotations

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    exercise,
    register,
    register_lecture,
    run_student,
)

register_lecture("14b", "14b_gpt_measured")


@exercise(
    "14b.1",
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
        "14b.2",
        "what the KV cache saves",
        hints=(
            "Without the cache every step feeds the whole prefix: the prompt, then the prompt "
            "and one token, ... ; add up the lengths of the n calls.",
            "With the cache the first call feeds the prompt and every later call one token.",
        ),
        expected=Expected("floats", ("4f61d256285e181b37c4", "ecca0bb17a58020ab4ba"), 0),
        correct="{answer} positions: the cache turns a quadratic amount of work into a linear "
        "one, which is why every served LLM keeps one",
    )
)

register(
    Exercise(
        "14b.3",
        "the in-context reader at k = 1",
        hints=(
            "With one example, the query's category is the example's with probability 1 / "
            "ways: then the reader copies its label.",
            "Otherwise it knows the answer is not the label it saw, and guesses among the "
            "other n_labels - 1 labels.",
        ),
        expected=Expected("float", ("a6ed7fe1388efd551433",), 2),
        correct="{answer}: one example already lifts the reader far above chance (1/6); the "
        "trained GPT's curve is compared with this ceiling",
    )
)
