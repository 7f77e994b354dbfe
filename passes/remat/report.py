"""What ``tad-remat`` decided, as data (the result the pass returns), JSON and a plot of live bytes over time.

Examples
--------
>>> r = FunctionReport(function="f", budget=None, tier="regions", status="honoured", gap=0.0,
...                    store_all_peak_bytes=64, predicted_peak_bytes=48, extra_flops=8,
...                    stored=[], recomputed=[], timeline={"store_all": [64], "chosen": [48]})
>>> r.as_dict()["predicted_peak_bytes"]
48
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Optional


@dataclass
class FunctionReport:
    """The schedule of one function.

    Attributes
    ----------
    stored : list of dict
        Forward values the backward sweep reads from memory: ``op``, ``bytes``,
        ``location`` (``file:line``) and ``name`` (its ``checkpoint_name``).
        For a function that is not a vjp (e.g. one with a derivative inlined),
        where the sweeps cannot be told apart: the values held at the peak.
    recomputed : list of dict
        Values the backward sweep computes again: the same keys plus ``times``.
    store_all_peak_bytes, predicted_peak_bytes : int
        Peak live bytes predicted by :func:`.cost.simulate` without and with the schedule.
    measured_peak_bytes : int or None
        Filled in by ``tensorad.memory_report`` after running the code.
    timeline : dict
        Live bytes while each op runs, ``"store_all"`` and ``"chosen"``.
    measured_timeline : list of int or None
        Live bytes after each allocation and free of one run, from the
        runtime's allocation hooks (``tensorad.memory_report`` fills it in for
        the entry function).
    """

    function: str
    budget: Optional[int]
    tier: str
    status: str
    gap: float
    store_all_peak_bytes: int
    predicted_peak_bytes: int
    extra_flops: int
    stored: list
    recomputed: list
    timeline: dict
    measured_peak_bytes: Optional[int] = None
    is_vjp: bool = False
    measured_timeline: Optional[list] = None

    @classmethod
    def of(cls, graph, function, store_all, chosen, recompute: dict, **solver) -> "FunctionReport":
        """Describe ``recompute`` on ``graph`` (timelines from :func:`.cost.simulate`)."""
        def describe(i: int) -> dict:
            node = graph.nodes[i]
            return {"op": node.label, "bytes": node.value_bytes, "location": node.location,
                    "name": node.name}

        stored = [describe(node) for node in _stored(graph, chosen)]
        times: dict = {}
        for nodes in recompute.values():
            for i in nodes:
                times[i] = times.get(i, 0) + 1
        recomputed = [{**describe(i), "times": k} for i, k in sorted(times.items())]
        return cls(function=function.attributes["sym_name"].value, store_all_peak_bytes=store_all.peak,
                   predicted_peak_bytes=chosen.peak, extra_flops=chosen.recompute_flops,
                   stored=stored, recomputed=recomputed,
                   timeline={"store_all": store_all.live, "chosen": chosen.live},
                   is_vjp=graph.backward is not None, **solver)

    def as_dict(self) -> dict:
        """The report as plain JSON-ready data."""
        return asdict(self)


def _stored(graph, timeline) -> list:
    """Forward nodes whose first copy the backward sweep reads (see ``FunctionReport.stored``)."""
    firsts = [(v, node) for v, (stage, node, again) in enumerate(timeline.events)
              if not again and graph.nodes[node].bytes]
    if graph.backward is None:
        peak = max(range(len(timeline.live)), key=timeline.live.__getitem__, default=0)
        peak_stage = timeline.events[peak][0] if timeline.events else 0
        return [node for v, node in firsts if timeline.events[v][0] < peak_stage
                and max(timeline.reads[v], default=-1) >= peak_stage]
    return [node for v, node in firsts if not graph.backward[node]
            and any(graph.backward[j] for j in timeline.reads[v] if j < len(graph.nodes))]


@dataclass
class RematReport:
    """What one run of ``tad-remat`` decided: the result the pass returns.

    Attributes
    ----------
    functions : list of FunctionReport
        One per scheduled function, in the module's order.

    Examples
    --------
    >>> RematReport([]).as_dict()
    {'functions': []}
    """

    functions: list

    def as_dict(self) -> dict:
        """The report as plain JSON-ready data: ``{"functions": [...]}``."""
        return {"functions": [r.as_dict() for r in self.functions]}

    def write(self, path: str) -> None:
        """Write the report to ``path`` as JSON (what ``autodiff-opt --tad-remat-report`` does)."""
        with open(path, "w") as out:
            json.dump(self.as_dict(), out, indent=2)


def plot(reports: list, path: str) -> None:
    """Draw live bytes over each function's timeline: store-all, the schedule, and what a run measured.

    The predicted timelines step once per op, the measured one once per
    allocation or free; both run over the same span (the fraction of the
    program done). Needs matplotlib (the ``bench`` extra: ``pip install -e ".[bench]"``).
    """
    try:
        import matplotlib
    except ImportError:
        raise ImportError("plotting a memory report needs matplotlib: pip install -e \".[bench]\" "
                          "(or pip install matplotlib)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(reports), 1, figsize=(8, 3 * len(reports)), squeeze=False)
    for ax, report in zip(axes[:, 0], reports):
        lines = [("store-all (predicted)", report.timeline["store_all"], "--"),
                 ("schedule (predicted)", report.timeline["chosen"], "-")]
        if report.measured_timeline:
            lines.append(("schedule (measured)", report.measured_timeline, ":"))
        for label, live, style in lines:
            steps = [k / max(1, len(live) - 1) for k in range(len(live))]
            ax.step(steps, [b / 2**20 for b in live], style, where="post", label=label)
        if report.budget is not None:
            ax.axhline(report.budget / 2**20, color="red", linewidth=0.8, label="budget")
        ax.set_title(f"@{report.function}: {report.tier} ({report.status})")
        ax.set_xlabel("program timeline (fraction of ops run)")
        ax.set_ylabel("live MiB")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
