"""Notebook 03, RoPE: the frequencies figure, the half-split order and the angle explorer.

The figure takes the learner's own frequencies. The one exception is the angle
explorer widget, which turns a single 2-D arrow by `position * theta` to draw it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np

from attnbook.widgets import LABELS

__all__ = [
    "EXAMPLE_PAIR",
    "EXAMPLE_THETA",
    "RopeAngleWidget",
    "half_split_order",
    "plot_rope_angles",
    "rope_angle_widget",
]


# ---------------------------------------------------------------------------------------
# notebook 03 figure and helper
# ---------------------------------------------------------------------------------------
def plot_rope_angles(frequencies, L: int = 64):
    """Angle l * theta_i (in degrees, wrapped to [0, 360)) against position l, per pair."""
    theta = np.asarray(frequencies, dtype=float)
    if theta.ndim != 1:
        raise ValueError(f"frequencies must be (d_k/2,); got shape {theta.shape}")
    fig, ax = plt.subplots(figsize=(8.0, 3.8))
    positions = np.arange(L, dtype=float)
    for i, t in enumerate(theta):
        wrapped = np.degrees(positions * t) % 360.0
        breaks = np.flatnonzero(np.diff(wrapped) < 0) + 1  # a full turn: do not draw back
        ax.plot(
            np.insert(positions, breaks, np.nan),
            np.insert(wrapped, breaks, np.nan),
            ".-",
            ms=3,
            label=f"pair {i}: theta = {t:.3g} rad",
        )
    ax.set_xlabel("position l")
    ax.set_ylabel("rotation angle l * theta_i (degrees, mod 360)")
    ax.set_title("Fast pairs wrap around quickly; slow pairs barely turn")
    ax.set_ylim(0, 360)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def half_split_order(d_k: int) -> np.ndarray:
    """Feature order taking our consecutive pairs to the half-split layout.

    `x[..., half_split_order(d_k)]` puts the first member of every pair (features 0, 2, 4..)
    in the first half and the second members (1, 3, 5..) in the second half, so pair i sits
    at features i and i + d_k/2, the convention some libraries use.
    """
    if d_k <= 0 or d_k % 2:
        raise ValueError(f"d_k must be a positive even number; got {d_k}")
    return np.concatenate([np.arange(0, d_k, 2), np.arange(1, d_k, 2)])


# ---------------------------------------------------------------------------------------
# notebook 03 widget: the angle explorer
# ---------------------------------------------------------------------------------------
def _arrow_svg(angle: float, color: str, label: str, ghost: bool = False) -> str:
    x, y = 80 + 62 * np.cos(angle), 80 - 62 * np.sin(angle)  # SVG's y axis points down
    opacity = "0.3" if ghost else "1"
    dash = ' stroke-dasharray="4 3"' if ghost else ""
    return (
        f'<line x1="80" y1="80" x2="{x:.1f}" y2="{y:.1f}" stroke="{color}" '
        f'stroke-width="3" opacity="{opacity}"{dash}/>'
        f'<text x="{80 + 72 * np.cos(angle):.1f}" y="{80 - 72 * np.sin(angle):.1f}" '
        f'font-size="10" fill="{color}" opacity="{opacity}" text-anchor="middle">'
        f"{html.escape(label)}</text>"
    )


#: The worked example's pair: 30 degrees per position, easy to follow by eye.
EXAMPLE_THETA = np.pi / 6
EXAMPLE_PAIR = "example"


class RopeAngleWidget(widgets.VBox):
    """One RoPE feature pair of a query and a key, drawn as arrows.

    The query sits at position l, the key at s; "move both" adds the same number of steps to
    both, and the arrows before the move are drawn faded. Each arrow starts along the x axis
    (the unrotated pair) and is turned by position * theta of the chosen pair. The shown
    angle difference is (s - l) * theta and the pair's score is cos of it, whatever "move
    both" says.

    The pair menu offers the worked example's pair (30 degrees per position, value
    "example") and pair i of `frequencies` (value i). The defaults open on that example: the
    30-degree pair, query and key at 1 and 3 (faded), both moved one step to 2 and 4, each
    turned 30 degrees further, the difference still 60 degrees.
    """

    def __init__(
        self,
        frequencies: Sequence[float] = (),
        query_position: int = 1,
        key_position: int = 3,
        shift: int = 1,
        max_position: int = 16,
        example_pair: bool = True,
    ):
        theta = np.asarray(frequencies, dtype=float).ravel()
        if theta.size == 0 and not example_pair:
            raise ValueError(
                "frequencies must hold at least one theta_i when the 30-degree example pair is "
                "left out"
            )
        self.frequencies = theta
        options: list[tuple[str, str | int]] = (
            [("example: 30° per position", EXAMPLE_PAIR)] if example_pair else []
        )
        options += [
            (f"pair {i}: theta_{i} = {np.degrees(t):.3g}° per position", i)
            for i, t in enumerate(theta)
        ]
        self.pair = widgets.Dropdown(
            options=options,
            value=options[0][1],
            description="pair",
            style=LABELS,
            disabled=len(options) == 1,
        )
        self.query_position = widgets.IntSlider(
            value=query_position, min=0, max=max_position, description="query at l", style=LABELS
        )
        self.key_position = widgets.IntSlider(
            value=key_position, min=0, max=max_position, description="key at s", style=LABELS
        )
        self.shift = widgets.IntSlider(
            value=shift, min=0, max=max_position, description="move both", style=LABELS
        )
        self.display = widgets.HTML()
        for control in (self.query_position, self.key_position, self.shift, self.pair):
            control.observe(self._redraw, names="value")
        super().__init__(
            [self.pair, self.query_position, self.key_position, self.shift, self.display]
        )
        self._redraw()

    def theta(self) -> float:
        """Radians per position of the chosen pair."""
        if self.pair.value == EXAMPLE_PAIR:
            return EXAMPLE_THETA
        return float(self.frequencies[self.pair.value])

    def positions(self) -> tuple[int, int]:
        """(l, s) after moving both tokens."""
        return (
            self.query_position.value + self.shift.value,
            self.key_position.value + self.shift.value,
        )

    def angles(self) -> tuple[float, float]:
        """Rotation angles (radians) of the query and key arrows now shown."""
        l, s = self.positions()
        return l * self.theta(), s * self.theta()

    def difference(self) -> float:
        """Angle from the query arrow to the key arrow, (s - l) * theta, in radians."""
        query_angle, key_angle = self.angles()
        return key_angle - query_angle

    def score(self) -> float:
        """The pair's match q~ . k~ for unit arrows: cos of the angle difference."""
        query_angle, key_angle = self.angles()
        q = np.array([np.cos(query_angle), np.sin(query_angle)])
        k = np.array([np.cos(key_angle), np.sin(key_angle)])
        return float(q @ k)

    def _redraw(self, _change=None) -> None:
        l, s = self.positions()
        query_angle, key_angle = self.angles()
        difference = self.difference()
        ghosts, before = "", ""
        if self.shift.value:
            l0, s0 = self.query_position.value, self.key_position.value
            ghosts = _arrow_svg(l0 * self.theta(), "#3b6fb6", f"q@{l0}", ghost=True) + _arrow_svg(
                s0 * self.theta(), "#d9822b", f"k@{s0}", ghost=True
            )
            before = (
                f"faded, before the move: query at {l0} turned "
                f"{np.degrees(l0 * self.theta()):.1f}&deg;, key at {s0} turned "
                f"{np.degrees(s0 * self.theta()):.1f}&deg;, difference "
                f"{np.degrees((s0 - l0) * self.theta()):.1f}&deg;<br>"
            )
        svg = (
            '<svg width="160" height="160" viewBox="0 0 160 160">'
            '<circle cx="80" cy="80" r="62" fill="none" stroke="#cccccc"/>'
            '<line x1="10" y1="80" x2="150" y2="80" stroke="#eeeeee"/>'
            f"{ghosts}{_arrow_svg(query_angle, '#3b6fb6', f'q@{l}')}"
            f"{_arrow_svg(key_angle, '#d9822b', f'k@{s}')}</svg>"
        )
        degrees = np.degrees
        self.display.value = (
            f'<div class="attnbook-rope" data-pair="{self.pair.value}" '
            f'data-theta="{self.theta():.6f}" data-query-position="{l}" '
            f'data-key-position="{s}" data-query-angle="{degrees(query_angle):.4f}" '
            f'data-key-angle="{degrees(key_angle):.4f}" '
            f'data-difference="{degrees(difference):.4f}" data-score="{self.score():.6f}" '
            'style="display:flex;gap:16px;align-items:center">'
            f"{svg}<div>{html.escape(self.pair.label)}<br>{before}"
            f"query at l = {l}: turned {degrees(query_angle):.1f}&deg;<br>"
            f"key at s = {s}: turned {degrees(key_angle):.1f}&deg;<br>"
            f"<b>difference (s - l) theta = {degrees(difference):.1f}&deg;</b><br>"
            f"pair score q~ . k~ = {self.score():.4f}</div></div>"
        )


def rope_angle_widget(
    frequencies: Sequence[float] = (),
    query_position: int = 1,
    key_position: int = 3,
    shift: int = 1,
    max_position: int = 16,
    example_pair: bool = True,
) -> RopeAngleWidget:
    """The angle explorer of notebook 03, opening on the 30-degree example (see RopeAngleWidget)."""
    return RopeAngleWidget(
        frequencies, query_position, key_position, shift, max_position, example_pair
    )
