"""Slide figures of lecture 11b, the Transformer variants (registered on import).

    11b  logsparse_mask_cost, act_halting_steps, memory_compressed_cost, conv_attention_windows

Everything is exact and seeded: masks and their reachability, FLOPs counted by
``count_flops`` (no timings), the shipped Universal Transformers' steps per chain depth on the
fixed held-out pointer chains, and which inputs one convolutional score depends on (autograd).
"""

from __future__ import annotations

from functools import cache

import torch
from matplotlib.figure import Figure

from lecturekit.attention import scaled_dot_product_attention
from lecturekit.datasets.variants import pointer_test_set
from lecturekit.efficient.conv_attention import ConvSelfAttention, MemoryCompressedAttention
from lecturekit.efficient.cost import variant_cost
from lecturekit.efficient.logsparse import logsparse_attention, logsparse_mask, reachable
from lecturekit.experiments.variants import depth_table
from lecturekit.masking import causal_mask
from lecturekit.shipped import load_shipped
from lecturekit.viz.efficient import plot_cost_curves
from lecturekit.viz.plots import plot_mask
from lecturekit.viz.variants import plot_depth_table
from lecturekit_publish.figures.registry import register, register_widget

COST_NS = (128, 256, 512, 1024, 2048)
STRIDES = (1, 2, 4, 8)


def _causal(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
    return scaled_dot_product_attention(q, k, v, causal_mask(q.shape[-2]))


@cache
def _logsparse_cost():
    return variant_cost(COST_NS, {"full causal": _causal, "LogSparse": logsparse_attention})


@register(
    "logsparse_mask_cost",
    lecture="11b",
    description="LogSparse: the mask for n = 16, reach after log2 n layers, FLOPs vs n",
    takeaway="LogSparse keeps about log2 n keys per query: n log n FLOPs, not n², and ⌈log2 n⌉ "
    "layers connect everything.",
)
def logsparse_mask_cost() -> Figure:
    """Notebook 11b section 2: the mask, its 4-layer reachability, counted FLOPs (d = 64).

    Lecture 11b; Li et al. 2019 Figure 3.
    """
    fig = Figure(figsize=(12, 4))
    ax1, ax2, ax3 = fig.subplots(1, 3)
    mask = logsparse_mask(16)
    plot_mask(mask, ax=ax1, show="none", title="LogSparse mask, n = 16")
    plot_mask(reachable(mask, 4), ax=ax2, show="none", title="reach after 4 layers")
    c = _logsparse_cost()
    plot_cost_curves(c.ns, c.flops, ax3, ylabel="FLOPs", title="one layer, d = 64")
    ax3.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


@cache
def _depth_tables():
    test = pointer_test_set()
    return {
        "ACT (up to 6 steps)": depth_table(load_shipped("ut_act_pointers"), test),
        "fixed 6 steps": depth_table(load_shipped("ut_fixed_pointers"), test),
    }


@register(
    "act_halting_steps",
    lecture="11b",
    description="Universal Transformer with ACT: steps and accuracy per pointer-chain depth",
    takeaway="With ACT the shared layer spends more steps on deeper tokens, and fewer in all than "
    "a fixed depth.",
)
def act_halting_steps() -> Figure:
    """Notebook 11b section 1: the shipped models on the held-out pointer chains.

    Lecture 11b; Dehghani et al. 2019; Graves 2016.
    """
    tables = _depth_tables()
    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.subplots(1, 2)
    plot_depth_table(tables, ax1, key="steps", ylabel="mean steps", title="Computation")
    plot_depth_table(tables, ax2, key="accuracy", ylabel="accuracy", title="Accuracy")
    ax2.set_ylim(0.9, 1.005)
    ax2.get_legend().remove()  # the left panel's legend names both models
    fig.tight_layout()
    return fig


@cache
def _compressed_cost():
    variants = {}
    for s in STRIDES:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            mca = MemoryCompressedAttention(64, s)
        variants[f"stride {s}"] = lambda q, k, v, mca=mca: mca(q, k, v)
    return variant_cost(COST_NS, variants)


@register(
    "memory_compressed_cost",
    lecture="11b",
    description="memory-compressed attention: counted FLOPs and peak memory vs n per stride",
    takeaway="A stride s cuts attention's FLOPs and memory by about s; the convolutions add a "
    "fixed cost.",
)
def memory_compressed_cost() -> Figure:
    """Notebook 11b section 3: strides 1, 2, 4, 8 (kernel = stride), d = 64.

    Lecture 11b; Liu et al. 2018 section 4.2.2.
    """
    c = _compressed_cost()
    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.subplots(1, 2)
    plot_cost_curves(c.ns, {k: [b / 2**20 for b in v] for k, v in c.peak_bytes.items()}, ax1,
                     ylabel="peak memory (MiB)", title="Memory")  # fmt: skip
    plot_cost_curves(c.ns, c.flops, ax2, ylabel="FLOPs", title="Operations", guides=False)
    ax1.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


def _score_inputs(kernel: int, n: int = 16, query: int = 12, key: int = 6) -> torch.Tensor:
    """|d score(query, key) / d x_t| summed over features, for a random ConvSelfAttention."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        csa = ConvSelfAttention(4, kernel)
        x = torch.randn(1, n, 4, requires_grad=True)
    q, k = csa.queries_keys(x)
    (q[0, query] @ k[0, key]).backward()
    return x.grad[0].abs().sum(-1)


@register(
    "conv_attention_windows",
    lecture="11b",
    description="convolutional self-attention: which inputs one score compares, kernel 1 vs 4",
    takeaway="With kernel k a score compares two windows of k points; kernel 1 is ordinary "
    "point-to-point attention.",
)
def conv_attention_windows() -> Figure:
    """Notebook 11b section 4: with kernel k a score compares two windows of k points.

    Lecture 11b; Li et al. 2019 Figure 1.
    """
    fig = Figure(figsize=(10, 3))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, kernel in zip(axes, (1, 4), strict=True):
        g = _score_inputs(kernel)
        ax.bar(range(len(g)), g.numpy())
        ax.set(title=f"kernel {kernel}: |d score(12, 6) / d x_t|", xlabel="input position t")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------- the notebooks' widgets, rebuilt


@register_widget(
    "act_steps_per_token",
    lecture="11b",
    index=0,
    description="the shipped ACT Universal Transformer: steps per token of a held-out chain",
)
def act_steps_per_token_rebuilt():
    """Notebook 11b section 1: ``act_widget`` over the first 40 held-out pointer chains.

    Lecture 11b.
    """
    from lecturekit.viz.variants import act_widget, act_widget_grid

    test = pointer_test_set()
    widget = act_widget(load_shipped("ut_act_pointers"), test.ids[:40], test.depth[:40])
    return widget, act_widget_grid(40)


@register_widget(
    "logsparse_reach",
    lecture="11b",
    index=1,
    description="the LogSparse mask and what stacked layers reach, as n, local and layers move",
)
def logsparse_reach_rebuilt():
    """Notebook 11b section 2: ``logsparse_widget(n=32, local=0, layers=2)``.

    Lecture 11b.
    """
    from lecturekit.viz.variants import logsparse_widget, logsparse_widget_grid

    return logsparse_widget(n=32, local=0, layers=2), logsparse_widget_grid()


@register_widget(
    "compressed_attention_stride",
    lecture="11b",
    index=2,
    description="memory-compressed attention's (n, m) weights as the stride moves",
)
def compressed_attention_stride_rebuilt():
    """Notebook 11b section 3: ``compressed_widget(n=24, d=8)``.

    Lecture 11b.
    """
    from lecturekit.viz.variants import compressed_widget, compressed_widget_grid

    return compressed_widget(n=24, d=8), compressed_widget_grid(24)
