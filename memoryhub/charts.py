"""Server-rendered SVG charts for the dashboard: no JavaScript, no inline styles (the CSP forbids them).

Each function returns escaped, safe markup: a ``<svg role="img">`` with a ``<title>`` and
``aria-label`` describing the data in words, so a screen reader gets the numbers too.
Colours come from CSS classes (``chart-series-0`` …) in the dashboard stylesheet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

WIDTH = 600
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 40, 12, 12, 26


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float]


def _frame(height: int, label: str, body: str) -> SafeString:
    return format_html(
        '<svg class="chart" viewBox="0 0 {} {}" role="img" aria-label="{}" preserveAspectRatio="none">'
        "<title>{}</title>{}</svg>",
        WIDTH,
        height,
        label,
        label,
        mark_safe(body),  # noqa: S308 - assembled below from escaped parts and numbers only
    )


def _y_axis(height: int, y_max: float, fmt: str) -> list[str]:
    parts = []
    inner = height - PAD_TOP - PAD_BOTTOM
    for fraction in (0.0, 0.5, 1.0):
        y = PAD_TOP + inner * (1 - fraction)
        parts.append(f'<line class="chart-grid" x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>')
        parts.append(
            f'<text class="chart-label" x="{PAD_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{escape(format(y_max * fraction, fmt))}</text>"
        )
    return parts


def _x_labels(height: int, labels: Sequence[str], positions: Sequence[float]) -> list[str]:
    if not labels:
        return []
    step = max(1, len(labels) // 6)
    parts = []
    for index in range(0, len(labels), step):
        x = positions[index]
        anchor = "start" if x < PAD_LEFT + 30 else "end" if x > WIDTH - PAD_RIGHT - 30 else "middle"
        parts.append(
            f'<text class="chart-label" x="{x:.1f}" y="{height - 8}" text-anchor="{anchor}">'
            f"{escape(labels[index])}</text>"
        )
    return parts


def bar_chart(
    series: Sequence[Series],
    labels: Sequence[str],
    *,
    label: str,
    height: int = 150,
    fmt: str = ".0f",
    y_max: float | None = None,
) -> SafeString:
    """Stacked bars, one per label (e.g. a day), one colour per series; ``y_max`` fixes the axis (e.g. 100%)."""
    count = len(labels)
    totals = [sum(s.values[i] for s in series) for i in range(count)]
    y_max = y_max or _nice_max(max(totals, default=0))
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    inner_h = height - PAD_TOP - PAD_BOTTOM
    slot = inner_w / max(count, 1)
    parts = _y_axis(height, y_max, fmt)
    centres = []
    for i in range(count):
        x = PAD_LEFT + i * slot + slot * 0.15
        centres.append(x + slot * 0.35)
        base = PAD_TOP + inner_h
        for index, s in enumerate(series):
            value = s.values[i]
            if value <= 0:
                continue
            h = inner_h * value / y_max
            base -= h
            parts.append(
                f'<rect class="chart-series-{index}" x="{x:.1f}" y="{base:.1f}" width="{slot * 0.7:.1f}" '
                f'height="{h:.1f}"><title>{escape(labels[i])}: {escape(s.name)} {escape(format(value, fmt))}'
                "</title></rect>"
            )
    parts += _x_labels(height, labels, centres)
    if not any(totals):
        parts.append(f'<text class="chart-empty" x="{WIDTH / 2}" y="{height / 2}" text-anchor="middle">none</text>')
    return _frame(height, label, "".join(parts))


def _nice_max(value: float) -> float:
    """The axis top for counts: at least 2 and even, so the middle tick is a whole number too."""
    if value <= 2:
        return 2
    top = int(value) + (0 if float(value).is_integer() else 1)
    return top + (top % 2)


def time_chart(
    points: Sequence[tuple[datetime, float]],
    *,
    label: str,
    height: int = 170,
    y_max: float | None = None,
    fmt: str = ".2f",
    step: bool = True,
    markers: Sequence[tuple[datetime, str]] = (),
    projection: Sequence[tuple[datetime, float]] = (),
) -> SafeString:
    """A value over time on a real time axis (irregular points), drawn as steps by default.

    ``markers`` are labelled vertical ticks (e.g. versions caused by a review); ``projection``
    is drawn dashed after the last point (e.g. decay if nothing reconfirms a belief).
    """
    if not points:
        return _frame(height, f"{label}: no data", '<text class="chart-label" x="300" y="80">no data</text>')
    times = [t.timestamp() for t, _ in [*points, *projection]] + [t.timestamp() for t, _ in markers]
    start, end = min(times), max(times)
    span = max(end - start, 1.0)
    y_top = y_max if y_max is not None else max(max(v for _, v in points), 1e-9)
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    inner_h = height - PAD_TOP - PAD_BOTTOM

    def x_of(t: datetime) -> float:
        return PAD_LEFT + inner_w * (t.timestamp() - start) / span

    def y_of(v: float) -> float:
        return PAD_TOP + inner_h * (1 - min(v, y_top) / y_top)

    coords: list[str] = []
    previous_y = None
    for t, v in points:
        x, y = x_of(t), y_of(v)
        if step and previous_y is not None:
            coords.append(f"{x:.1f},{previous_y:.1f}")
        coords.append(f"{x:.1f},{y:.1f}")
        previous_y = y
    parts = _y_axis(height, y_top, fmt)
    for t, text in markers:
        x = x_of(t)
        parts.append(
            f'<line class="chart-marker" x1="{x:.1f}" x2="{x:.1f}" y1="{PAD_TOP}" y2="{height - PAD_BOTTOM}">'
            f"<title>{escape(text)}</title></line>"
        )
    parts.append(f'<polyline class="chart-line" points="{" ".join(coords)}"/>')
    if projection:
        ahead = " ".join(f"{x_of(t):.1f},{y_of(v):.1f}" for t, v in [points[-1], *projection])
        parts.append(f'<polyline class="chart-projection" points="{ahead}"><title>projected decay</title></polyline>')
    for t, v in points:
        parts.append(
            f'<circle class="chart-dot" cx="{x_of(t):.1f}" cy="{y_of(v):.1f}" r="3">'
            f"<title>{escape(t.strftime('%Y-%m-%d %H:%M'))}: {escape(format(v, fmt))}</title></circle>"
        )
    first, last = points[0][0], (projection[-1][0] if projection else points[-1][0])
    fmt_x = "%Y-%m-%d" if span > 2 * 86400 else "%m-%d %H:%M"
    parts += _x_labels(height, [first.strftime(fmt_x), last.strftime(fmt_x)], [x_of(first), x_of(last)])
    return _frame(height, label, "".join(parts))


def meter(used: float, total: float, *, label: str, height: int = 18) -> SafeString:
    """A horizontal bar: ``used`` of ``total`` (e.g. tokens of a recall budget)."""
    share = 0.0 if total <= 0 else max(0.0, min(1.0, used / total))
    body = (
        f'<rect class="meter-track" x="0" y="0" width="{WIDTH}" height="{height}" rx="4"/>'
        f'<rect class="meter-fill" x="0" y="0" width="{WIDTH * share:.1f}" height="{height}" rx="4"/>'
    )
    return format_html(
        '<svg class="meter" viewBox="0 0 {} {}" role="img" aria-label="{}" preserveAspectRatio="none">'
        "<title>{}</title>{}</svg>",
        WIDTH,
        height,
        label,
        label,
        mark_safe(body),  # noqa: S308 - numbers only
    )
