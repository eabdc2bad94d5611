"""Slide figures of lecture 11, efficient attention (registered on import).

    11  lsh_attention_panels, efficient_attention_cost, transformer_xl_context

Everything here is exact and seeded: real LSH hashes of the notebook's toy vectors, FLOPs
counted with torch's FlopCounterMode and bytes counted by ``peak_memory`` (no timings), and
dependencies of a small random Transformer-XL stack measured by perturbation and autograd.
"""

from __future__ import annotations

from functools import cache

import torch
from matplotlib.figure import Figure

from lecturekit.efficient.cost import VARIANTS, attention_cost
from lecturekit.efficient.xl import MemoryAttentionLayer, dependency_matrix
from lecturekit.viz.efficient import (
    lsh_panel_example,
    plot_cost_curves,
    plot_dependency,
    plot_lsh_panels,
)
from lecturekit_publish.figures.registry import register, register_widget

_COST_NS = (128, 256, 512, 1024)  # notebook 11's exact counts
_XL = {"layers": 3, "segment_len": 4, "segments": 5, "d_model": 16, "heads": 2}


@register(
    "lsh_attention_panels",
    lecture="11",
    description="Reformer Figure 2 from real hashes: same-bucket pairs, sorted, Q = K chunks, "
    "chunked attention",
    takeaway="With Q = K, sorted buckets are square blocks on the diagonal; a chunk attends to "
    "itself and the one before.",
)
def lsh_attention_panels() -> Figure:
    """Notebook 11 section 3: 24 toy vectors, 4 buckets, chunks of 4, hash seed 1.

    Lecture 11; Kitaev et al. 2020 Figure 2.
    """
    q, k = lsh_panel_example()
    return plot_lsh_panels(q, k, n_buckets=4, chunk_size=4, seed=1, fig=Figure(), ncols=2)


@cache
def _cost():
    return attention_cost(_COST_NS, d=64, window=32, chunk_size=64)


@register(
    "efficient_attention_cost",
    lecture="11",
    description="peak memory and FLOPs vs n: full, local (mask / chunked), LSH attention, GRU",
    takeaway="A band mask saves nothing; chunked local and LSH attention grow about linearly in n, "
    "full attention as n².",
)
def efficient_attention_cost() -> Figure:
    """Notebook 11 section 4: exact bytes (``peak_memory``) and FLOPs per layer, d = 64.

    Lecture 11; Vaswani et al. 2017 Table 1.
    """
    c = _cost()
    fig = Figure()
    ax1, ax2 = fig.subplots(1, 2)
    styles = {"local (band mask)": {"ls": "--"}}  # its FLOPs are full attention's
    plot_cost_curves(c.ns, {n: [b / 2**20 for b in c.peak_bytes[n]] for n in VARIANTS}, ax1,
                     ylabel="peak memory (MiB)", title="Memory", styles=styles)  # fmt: skip
    plot_cost_curves(c.ns, {n: c.flops[n] for n in VARIANTS}, ax2, ylabel="FLOPs",
                     title="Operations", guides=False, styles=styles)  # fmt: skip
    handles, labels = ax1.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, frameon=False)
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    return fig


@cache
def _xl_dependencies():
    cfg = _XL
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        layers = [MemoryAttentionLayer(cfg["d_model"], cfg["heads"]).eval()
                  for _ in range(cfg["layers"])]  # fmt: skip
    x = torch.randn(1, cfg["segments"] * cfg["segment_len"], cfg["d_model"],
                    generator=torch.Generator().manual_seed(0))  # fmt: skip
    L = cfg["segment_len"]
    return (
        dependency_matrix(layers[:1], x, L),
        dependency_matrix(layers, x, L),
        dependency_matrix(layers, x, L, kind="gradient"),
    )


@register(
    "transformer_xl_context",
    lecture="11",
    description="Transformer-XL: context grows with layers x segment length; gradients stay "
    "in the segment",
    takeaway="With a cached memory the context grows by one segment per layer, while gradients "
    "stay in the segment.",
)
def transformer_xl_context() -> Figure:
    """Notebook 11 section 5: which inputs each output depends on (1 and 3 layers, memory =
    one segment of 4) and where gradients flow (the memory is detached).

    Lecture 11; Dai et al. 2019 Figure 2.
    """
    one, three, grad = _xl_dependencies()
    fig = Figure()
    axes = fig.subplots(1, 3)
    titles = ("forward, 1 layer", f"forward, {_XL['layers']} layers",
              f"gradient, {_XL['layers']} layers")  # fmt: skip
    for ax, matrix, title in zip(axes, (one, three, grad), titles, strict=True):
        plot_dependency(matrix, _XL["segment_len"], ax, title=title)
    for ax in axes[1:]:
        ax.set_ylabel(None)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------- the notebooks' widgets, rebuilt


@register_widget(
    "lsh_buckets_chunks",
    lecture="11",
    index=0,
    description="LSH attention's four panels as the buckets, the chunk size and the hash seed move",
)
def lsh_buckets_chunks_rebuilt():
    """Notebook 11 section 3: ``lsh_widget`` on the panels' 24 toy vectors.

    Lecture 11.
    """
    from lecturekit.viz.efficient import lsh_widget, lsh_widget_grid

    q, k = lsh_panel_example()
    return lsh_widget(q, k, n_buckets=4, chunk_size=4, seed=1), lsh_widget_grid(len(q))
