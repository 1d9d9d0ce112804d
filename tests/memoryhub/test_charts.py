"""Server-rendered SVG charts: escaped labels, sane axes, bounded meters (pure functions, no database)."""

from datetime import UTC, datetime, timedelta

from memoryhub.charts import Series, bar_chart, meter, time_chart
from memoryhub.templatetags.dashboard import highlight_spans


def test_chart_labels_are_escaped():
    svg = bar_chart([Series("<b>x</b>", [1, 2])], ["<script>", "b"], label='a "quoted" <label>')
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert 'aria-label="a &quot;quoted&quot; &lt;label&gt;"' in svg


def test_bar_chart_axis_is_even_and_empty_charts_say_so():
    svg = bar_chart([Series("n", [3, 0, 0])], ["a", "b", "c"], label="counts")
    assert ">4</text>" in svg and ">2</text>" in svg  # top rounded up to an even number
    assert ">none</text>" in bar_chart([Series("n", [0, 0])], ["a", "b"], label="empty")


def test_time_chart_draws_steps_markers_and_a_projection():
    start = datetime(2026, 1, 1, tzinfo=UTC)
    svg = time_chart(
        [(start, 0.5), (start + timedelta(days=5), 0.8)],
        label="confidence",
        y_max=1.0,
        markers=[(start + timedelta(days=2), "v2 reviewed")],
        projection=[(start + timedelta(days=30), 0.4)],
    )
    assert svg.count("<circle") == 2 and 'class="chart-marker"' in svg and 'class="chart-projection"' in svg
    assert "v2 reviewed" in svg


def test_meter_is_clamped_to_the_track():
    assert 'width="600.0"' in meter(900, 300, label="over")
    assert 'width="0.0"' in meter(0, 0, label="none")


def test_highlighted_quotes_escape_the_text_around_them():
    html = highlight_spans("<i>a</i> quote <b>", [(9, 14, "quote", "q-1")])
    assert html == '&lt;i&gt;a&lt;/i&gt; <mark class="quote" id="q-1">quote</mark> &lt;b&gt;'
