"""Interactive versions of the decks' live slides, built with ipywidgets 8.

Each builder returns a widget whose current display is plain HTML held in an
`ipywidgets.HTML` child, so tests (and the browser suite) can set a control and read what
the learner sees.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np

from attnbook.ops import torch_softmax


def bars_html(
    labels: Sequence[str],
    values: Sequence[float] | np.ndarray,
    title: str = "",
    muted: Sequence[bool] | np.ndarray | None = None,
) -> str:
    """A horizontal bar chart in HTML: one bar per label, its value printed beside it."""
    muted = muted if muted is not None else [False] * len(labels)
    rows = []
    for label, value, off in zip(labels, values, muted):
        width = max(0.0, min(1.0, float(value))) * 100
        color = "#bbbbbb" if off else "#3b6fb6"
        rows.append(
            f'<div class="attnbook-bar" data-label="{html.escape(str(label))}" '
            f'data-value="{float(value):.6f}" style="display:flex;align-items:center;gap:6px">'
            f'<span style="width:7em;text-align:right">{html.escape(str(label))}</span>'
            f'<span style="display:inline-block;height:14px;width:{width:.1f}%;max-width:60%;'
            f'background:{color}"></span><span>{float(value):.3f}</span></div>'
        )
    head = f"<b>{html.escape(title)}</b>" if title else ""
    return f'<div class="attnbook-bars">{head}{"".join(rows)}</div>'


# ipywidgets cuts a description at about 80 px ("temperat..."): show each in full
LABELS = {"description_width": "initial"}


class SoftmaxTemperatureWidget(widgets.VBox):
    """Drag the scores and the temperature; watch softmax turn them into weights.

    Weights are softmax(scores / temperature): a low temperature (like large scores or a
    small sqrt(d_k)) moves the weight onto the largest score, a one-hot row when that score
    is unique (keys that tie for the top share the weight equally), and a high temperature
    flattens the weights towards uniform. The title names the key(s) holding the top score.
    """

    def __init__(
        self,
        scores: Sequence[float] = (2.0, 1.0, 0.5, -1.0),
        labels: Sequence[str] = ("cup", "robot", "picked", "the"),
    ):
        if len(scores) != len(labels):
            raise ValueError(
                f"scores and labels must have the same length; got "
                f"{len(scores)} scores and {len(labels)} labels"
            )
        self.labels = list(labels)
        self.temperature = widgets.FloatLogSlider(
            value=1.0,
            base=10,
            min=-1.5,
            max=1.0,
            step=0.05,
            description="temperature",
            style=LABELS,
        )
        self.score_sliders = [
            widgets.FloatSlider(
                value=float(s), min=-5.0, max=5.0, step=0.1, description=f"s({label})", style=LABELS
            )
            for s, label in zip(scores, labels)
        ]
        self.display = widgets.HTML()
        for control in (self.temperature, *self.score_sliders):
            control.observe(self._redraw, names="value")
        super().__init__([self.temperature, *self.score_sliders, self.display])
        self._redraw()

    def scores(self) -> np.ndarray:
        return np.array([s.value for s in self.score_sliders])

    def weights(self) -> np.ndarray:
        """The weights currently shown: softmax(scores / temperature)."""
        return torch_softmax(self.scores() / self.temperature.value)

    def top_keys(self) -> list[str]:
        """The labels of the largest score: one key, or every key that ties for the top."""
        scores = self.scores()
        return [label for label, s in zip(self.labels, scores) if s == scores.max()]

    def _redraw(self, _change=None) -> None:
        weights = self.weights()
        entropy = float(-(weights * np.log(np.maximum(weights, 1e-300))).sum())
        top = self.top_keys()
        if len(top) == 1:
            lead = f"largest score: {top[0]} (weight {weights.max():.3f})"
        else:
            lead = (
                f"largest score shared by {', '.join(top)}: as T falls they split the "
                f"weight, {1 / len(top):.3g} each"
            )
        self.display.value = bars_html(
            self.labels,
            weights,
            title=f"softmax(s / {self.temperature.value:.3g}): {lead}; entropy {entropy:.3f} "
            f"nats (uniform would be {np.log(len(weights)):.3f})",
        )


def softmax_temperature_widget(
    scores: Sequence[float] = (2.0, 1.0, 0.5, -1.0),
    labels: Sequence[str] = ("cup", "robot", "picked", "the"),
):
    """The decks' scores-to-weights slide as a widget (see SoftmaxTemperatureWidget)."""
    return SoftmaxTemperatureWidget(scores, labels)
