"""``spdgraph demo`` and ``spdgraph methods``."""

from __future__ import annotations

import argparse
import time
from typing import Any


def _cmd_demo(args: argparse.Namespace) -> int:
    import spdgraph
    from spdgraph import __version__
    from spdgraph.graphs import erdos_renyi

    graph = erdos_renyi(args.p, args.d, seed=args.seed)
    print(
        f"spdgraph {__version__}: Erdős–Rényi graph with p={args.p}, d={args.d} "
        f"({graph.number_of_edges()} edges), {args.size} matrices per method, seed={args.seed}"
    )
    header = ("method", "seconds", "mean R", "min eig", "max cond", "zeros ok")
    print("{:<8}{:>10}{:>10}{:>12}{:>12}{:>10}".format(*header))
    firsts = []
    for method in args.methods:
        t0 = time.perf_counter()
        da = spdgraph.sample(
            graph,
            method=method,
            size=args.size,
            seed=args.seed,
            normalize=False,
            entries="uniform",
        )
        elapsed = time.perf_counter() - t0
        firsts.append((method, da.isel(sample=0)))
        ds = spdgraph.diagnostics(da)
        min_eig = ds["min_eigenvalue"].values
        zeros_ok = bool((ds["max_abs_nonedge"].values == 0).all())
        print(
            f"{method:<8}{elapsed:>10.3f}{ds['link_strength'].values.mean():>10.4f}"
            f"{min_eig.min():>12.3g}{ds['condition_number'].values.max():>12.3g}"
            f"{'yes' if zeros_ok else 'NO':>10}"
        )
    print("R: the paper's link strength max_{i<j edge} |m_ij|/m_ii (U(0,1) entries, raw scale).")
    if args.plot and firsts:
        _save_demo_picture(firsts, args.plot)
    return 0


def _demo_figure(firsts: list[tuple[str, Any]]) -> Any:
    """One heatmap per method of the matrix whose zeros are the graph (the covariance)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(firsts), figsize=(5.5 * len(firsts), 4.6), squeeze=False)
    for ax, (method, one) in zip(axes[0], firsts, strict=True):
        one.spd.plot(ax=ax)
        what = ax.get_title()
        ax.set_title(f"{method}: {what} (white: exact zeros, the non-edges)")
    return fig


def _save_demo_picture(firsts: list[tuple[str, Any]], path: str) -> None:
    """The :func:`_demo_figure`, saved to ``path``."""
    import matplotlib.pyplot as plt

    from spdgraph.io import save_figure

    fig = _demo_figure(firsts)
    try:
        save_figure(fig, path, dpi=120, bbox_inches="tight")
    finally:
        plt.close(fig)
    print(f"picture: {path}")


def _add_demo_parser(sub: Any) -> None:
    demo = sub.add_parser("demo", help="sample on a random graph and print a summary")
    demo.add_argument("--p", type=int, default=100, help="number of nodes (default 100)")
    demo.add_argument("--d", type=float, default=0.25, help="edge probability (default 0.25)")
    demo.add_argument("--size", type=int, default=10, help="matrices per method (default 10)")
    demo.add_argument("--seed", type=int, default=2018, help="seed (default 2018)")
    demo.add_argument(
        "--methods", nargs="+", default=["po", "dd"], help="methods to compare (default: po dd)"
    )
    demo.add_argument(
        "--plot",
        metavar="OUT.png",
        help="also save each method's first matrix as a heatmap (its zeros, the graph, white)",
    )
    demo.set_defaults(func=_cmd_demo)


def _cmd_methods(args: argparse.Namespace) -> int:
    import spdgraph
    from spdgraph.plugins import find_generator

    table = spdgraph.methods()
    width = max((len(name) for name in table), default=0) + 2  # survives long names
    for name, description in table.items():
        print(f"{name:<{width}}{description}")
        spec, _plugin = find_generator(name)
        options = ", ".join(f"{opt}={_default(o)}" for opt, o in spec.options.items())
        notes = [f"options: {options}" if options else "no options"]
        if spec.intended_kind:
            notes.append(f"intended kind: {spec.intended_kind}")
        if spec.portable:
            notes.append("portable")
        print(f"{'':<{width}}{'; '.join(notes)}")
    for plugin, reason in spdgraph.plugins.broken_plugins().items():
        print(f"broken plugin {plugin!r}: {reason}")
    return 0


def _default(option: Any) -> str:
    return repr(getattr(option, "default", option))


def _add_methods_parser(sub: Any) -> None:
    methods = sub.add_parser("methods", help="list registered generator methods")
    methods.set_defaults(func=_cmd_methods)


def _cmd_warmup(args: argparse.Namespace) -> int:
    import spdgraph

    print("spdgraph: compiling every numerical kernel (cached on disk for later runs)")
    times = spdgraph.warmup(portable=args.portable)
    for name, seconds in times.items():
        print(f"  {name:<32}{seconds:8.2f} s")
    print(f"done in {sum(times.values()):.1f} s")
    return 0


def _add_warmup_parser(sub: Any) -> None:
    warm = sub.add_parser(
        "warmup",
        help="compile every numerical kernel ahead (e.g. in a Docker build or on a "
        "cluster's workers)",
    )
    warm.add_argument(
        "--portable",
        action="store_true",
        help="also compile the portable=True kernels (not cached: per process)",
    )
    warm.set_defaults(func=_cmd_warmup)
