"""The attribution rule and intervention states as pure functions (no database)."""

from datetime import UTC, datetime, timedelta

import pytest

from workloads.churn.timeline import (
    AWAITING,
    IN_FLIGHT,
    ReportedOutcome,
    Window,
    attribute,
    counts_from,
    state_at,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def window(pk: int, start: float, horizon: float) -> Window:
    return Window(pk, day(start), day(start + horizon))


@pytest.mark.parametrize(
    ("occurred", "expected"),
    [
        (-1, None),  # before any offer
        (0, 1),  # the window opens at the offer (inclusive)
        (59, 1),
        (89.9, 1),  # inside the grace period of the first offer; the second had not started
        (90, 2),  # both windows contain it: the latest offer wins
        (120, 2),  # the first window closed at 60 + 30 = 90; the second runs to 90 + 60 + 30 = 180
        (180, 2),  # the last instant of the second window (inclusive)
        (180.01, None),  # after every window
    ],
)
def test_an_unnamed_outcome_goes_to_the_latest_offer_whose_window_contains_it(occurred, expected):
    windows = [window(1, 0, 60), window(2, 90, 60)]
    assert attribute(occurred_at=day(occurred), windows=windows, grace_days=30) == expected


def test_overlapping_offers_never_share_an_outcome():
    windows = [window(1, 0, 90), window(2, 30, 60), window(3, 30, 90)]  # 2 and 3 start together: the higher id wins
    chosen = {attribute(occurred_at=day(d), windows=windows, grace_days=30) for d in range(30, 150)}
    assert chosen == {3}
    assert attribute(occurred_at=day(20), windows=windows, grace_days=30) == 1


def test_the_grace_period_decides_how_late_an_outcome_may_happen():
    windows = [window(1, 0, 60)]
    assert attribute(occurred_at=day(75), windows=windows, grace_days=30) == 1
    assert attribute(occurred_at=day(75), windows=windows, grace_days=10) is None
    assert attribute(occurred_at=day(60), windows=windows, grace_days=0) == 1


def test_an_outcome_counts_from_the_later_of_horizon_close_and_report():
    assert counts_from(horizon_closes_at=day(60), recorded_at=day(20)) == day(60)  # an early churn waits
    assert counts_from(horizon_closes_at=day(60), recorded_at=day(85)) == day(85)  # a late report counts from then


def test_states_over_time_without_peeking():
    closes = day(60)
    late = ReportedOutcome(7, "churned", recorded_at=day(80), counts_from=day(80))

    def at(n, outcome=late):
        return state_at(horizon_closes_at=closes, outcome=outcome, now=day(n), grace_days=30)

    assert at(10).state == IN_FLIGHT
    assert at(70).state == AWAITING and at(70).window_closes_at == day(90)
    assert (at(80).state, at(80).known_at, at(80).outcome_id) == ("churned", day(80), 7)
    silent = at(95, outcome=None)
    assert (silent.state, silent.known_at, silent.outcome_id) == ("unknown", day(90), None)
    # A report that arrives after the window replaces the timed-out unknown from its own report time only.
    very_late = ReportedOutcome(8, "retained", recorded_at=day(130), counts_from=day(130))
    assert at(100, outcome=very_late).state == "unknown"
    assert (at(130, outcome=very_late).state, at(130, outcome=very_late).known_at) == ("retained", day(130))
