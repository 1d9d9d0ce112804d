"""Time expressions in English text, resolved to ``[start, end)`` ranges.

Used twice: on a recall query ("last Tuesday", "in May 2023", "two weeks before
June 9", "since March") against a reference time, and on retained text ("I went
there yesterday") against the episode's ``occurred_at``, so an episode knows which
time it talks about. Pure functions, no database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MONTHS = {
    name: index
    for index, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
WEEKDAYS = {
    name: index
    for index, name in enumerate(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
}
NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "couple of": 2,
    "a couple of": 2,
    "few": 3,
    "a few": 3,
    "several": 3,
}
SEASONS = {"spring": (3, 6), "summer": (6, 9), "autumn": (9, 12), "fall": (9, 12), "winter": (12, 15)}
UNITS = {"day": timedelta(days=1), "week": timedelta(weeks=1)}

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?P<weekday>" + "|".join(WEEKDAYS) + r")s?"
_NUMBER = r"(?P<count>\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>day|week|month|year)s?"

# A question asks for a time when it opens with "when"/"how long", or when an interrogative governs a unit of time
# ("in which month", "what year", "how many weeks", "at what age", "how long ago"), wherever it sits in the sentence.
_TIME_UNIT = r"(?:date|day|night|week|weekend|fortnight|month|year|season|decade|hour|minute|semester|age)s?"
_WHEN_QUESTION = re.compile(
    r"^\s*(?:when|since\s+when|how\s+long)\b"
    r"|\bwhen\s+(?:did|was|were|is|are|does|do|will|would|has|had|have)\b"
    r"|\b(?:what|which)\s+(?:[^\W\d_]+\s+){0,2}?" + _TIME_UNIT + r"\b"
    r"|\b(?:what|which)\s+time\b(?!s)"
    r"|\bhow\s+many\s+(?:[^\W\d_]+\s+)?(?:days|nights|weeks|weekends|months|years|hours|decades)\b"
    r"|\bhow\s+(?:long|recently|soon)\b"
    r"|\bat\s+what\s+(?:point|age|stage)\b",
    re.I,
)


@dataclass(frozen=True)
class TimeRange:
    """A half-open interval ``[start, end)`` and the words it came from."""

    start: datetime
    end: datetime
    text: str

    def overlaps(self, other: TimeRange) -> bool:
        return self.start < other.end and other.start < self.end


def asks_when(text: str) -> bool:
    """Does the question ask for a time ("When did…", "How long…")?"""
    return bool(_WHEN_QUESTION.search(text))


def _day(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_start(year: int, month: int, tz) -> datetime:
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    return datetime(year, month, 1, tzinfo=tz)


def _month_range(year: int, month: int, tz) -> tuple[datetime, datetime]:
    return _month_start(year, month, tz), _month_start(year, month + 1, tz)


def _count(value: str) -> int:
    value = value.lower()
    return int(value) if value.isdigit() else NUMBERS.get(value, 1)


def _shift(moment: datetime, count: int, unit: str) -> datetime:
    if unit in UNITS:
        return moment + UNITS[unit] * count
    months = count * (12 if unit == "year" else 1)
    month_index = moment.month - 1 + months
    year, month = moment.year + month_index // 12, month_index % 12 + 1
    day = min(moment.day, 28)
    return moment.replace(year=year, month=month, day=day)


def _unit_range(anchor: datetime, unit: str) -> tuple[datetime, datetime]:
    """The calendar day/week/month/year containing ``anchor``."""
    tz = anchor.tzinfo
    if unit == "day":
        start = _day(anchor)
        return start, start + timedelta(days=1)
    if unit == "week":
        start = _day(anchor) - timedelta(days=anchor.weekday())
        return start, start + timedelta(weeks=1)
    if unit == "weekend":
        saturday = _day(anchor) + timedelta(days=(5 - anchor.weekday()) % 7)
        if anchor.weekday() == 6:
            saturday -= timedelta(days=1)
        return saturday, saturday + timedelta(days=2)
    if unit == "month":
        return _month_range(anchor.year, anchor.month, tz)
    return datetime(anchor.year, 1, 1, tzinfo=tz), datetime(anchor.year + 1, 1, 1, tzinfo=tz)


# Each rule: a pattern and a resolver (match, reference) -> (start, end) | None.
_RULES: list[tuple[re.Pattern, object]] = []


def _rule(pattern: str):
    def register(resolver):
        _RULES.append((re.compile(pattern, re.I), resolver))
        return resolver

    return register


# Longer phrasings first: where two rules match overlapping text, the one registered first wins.
@_rule(r"\bthe\s+day\s+(?P<dir>before\s+yesterday|after\s+tomorrow)\b")
def _two_days(m, ref):
    start = _day(ref) + timedelta(days=-2 if m["dir"].lower().startswith("before") else 2)
    return start, start + timedelta(days=1)


@_rule(r"\blast\s+night\b")
def _last_night(m, ref):
    """From noon of the day before to the morning of the reference's day (said the next morning or later)."""
    day = _day(ref)
    return day - timedelta(hours=12), min(day + timedelta(hours=6), ref) if ref > day else day


@_rule(r"\bthe\s+(?P<unit>week|weekend|month|year)\s+before\s+last\b")
def _before_last(m, ref):
    unit = m["unit"].lower()
    if unit == "weekend":
        return _unit_range(ref - timedelta(weeks=2) - timedelta(days=(ref.weekday() + 2) % 7), "weekend")
    anchor = _shift(ref, -2, unit) if unit in ("month", "year") else ref + UNITS[unit] * -2
    return _unit_range(anchor, unit)


# Parts of a month: its first ten days, the ten around its middle, its last eleven or so.
_PARTS = {"early": (1, 11), "beginning": (1, 11), "start": (1, 11), "mid": (10, 21), "middle": (10, 21),
          "late": (20, None), "end": (20, None)}  # fmt: skip


@_rule(
    r"\b(?:(?P<part>early|mid|late)[\s-]+|(?:at\s+)?the\s+(?P<which>beginning|start|middle|end)\s+of\s+)"
    + _MONTH
    + r",?(?:\s+(?P<year>(?:19|20)\d\d))?\b"
)
def _part_of_month(m, ref):
    month = MONTHS[m["month"].lower()]
    year = int(m["year"]) if m["year"] else ref.year - (1 if month > ref.month else 0)
    first, after = _PARTS[(m["part"] or m["which"]).lower()]
    start = datetime(year, month, first, tzinfo=ref.tzinfo)
    end = datetime(year, month, after, tzinfo=ref.tzinfo) if after else _month_start(year, month + 1, ref.tzinfo)
    return start, end


_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3}


@_rule(r"\bthe\s+(?P<nth>first|second|third|fourth|last)\s+(?P<unit>week|weekend)\s+of\s+" + _MONTH
       + r",?(?:\s+(?P<year>(?:19|20)\d\d))?\b")  # fmt: skip
def _week_of_month(m, ref):
    month = MONTHS[m["month"].lower()]
    year = int(m["year"]) if m["year"] else ref.year - (1 if month > ref.month else 0)
    first, after = _month_range(year, month, ref.tzinfo)
    if m["nth"].lower() == "last":
        start = after - timedelta(days=7)
    else:
        start = first + timedelta(weeks=_ORDINALS[m["nth"].lower()])
    if m["unit"].lower() == "weekend":
        start, _ = _unit_range(start, "weekend")
        return start, start + timedelta(days=2)
    return start, start + timedelta(days=7)


@_rule(r"\bthe\s+other\s+(?P<unit>day|night|week)\b")
def _the_other(m, ref):
    """A few days (weeks) back, not the last one: "the other day" said on the 22nd is the 15th to the 21st."""
    span = timedelta(days=7) if m["unit"].lower() in ("day", "night") else timedelta(weeks=4)
    return _day(ref) - span, _day(ref)


@_rule(r"\b(?P<word>yesterday|today|tonight|tomorrow)\b")
def _relative_day(m, ref):
    offset = {"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1}[m["word"].lower()]
    start = _day(ref) + timedelta(days=offset)
    return start, start + timedelta(days=1)


@_rule(r"\b(?P<which>this\s+past|last|this|next|past|previous|coming|following)\s+(?P<unit>week|weekend|month|year)\b")
def _relative_unit(m, ref):
    which, unit = " ".join(m["which"].lower().split()), m["unit"].lower()
    step = {"last": -1, "past": -1, "this past": -1, "previous": -1, "this": 0, "next": 1, "coming": 1,
            "following": 1}[which]  # fmt: skip
    if unit == "weekend":
        return _unit_range(
            ref + timedelta(weeks=step) - timedelta(days=(ref.weekday() + 2) % 7 if step < 0 else 0), "weekend"
        )
    anchor = _shift(ref, step, unit) if unit in ("month", "year") else ref + UNITS[unit] * step
    return _unit_range(anchor, unit)


@_rule(r"\b(?:(?P<which>this\s+past|last|this|next|on|past)\s+)?" + _WEEKDAY + r"\b")
def _weekday(m, ref):
    target = WEEKDAYS[m["weekday"].lower()]
    which = " ".join((m["which"] or "").lower().split())
    delta = (ref.weekday() - target) % 7
    if which == "next":
        day = _day(ref) + timedelta(days=(target - ref.weekday()) % 7 or 7)
    elif which == "this":
        day = _day(ref) - timedelta(days=ref.weekday()) + timedelta(days=target)
    else:  # last / on / bare: the most recent such day before the reference
        day = _day(ref) - timedelta(days=delta or 7)
    return day, day + timedelta(days=1)


@_rule(
    r"\b" + _NUMBER + r"\s+(?P<unit>day|week|weekend|fortnight|month|year)s?"
    r"\s+(?P<dir>ago|back|earlier|later|from now)\b"
)
def _ago(m, ref):
    count, unit = _count(m["count"]), m["unit"].lower()
    if unit in ("weekend", "fortnight"):  # counted in weeks ("two weekends ago"), read as the week it lands in
        count, unit = count * (2 if unit == "fortnight" else 1), "week"
    sign = -1 if m["dir"].lower() in ("ago", "back", "earlier") else 1
    anchor = _shift(ref, sign * count, unit)
    return _unit_range(anchor, "day" if unit in ("day",) else unit if unit != "year" else "month")


@_rule(
    r"\b(?:in|during|last|this)?\s*(?:the\s+)?(?P<season>spring|summer|autumn|fall|winter)(?:\s+of\s+(?P<year>(?:19|20)\d\d))?\b"
)
def _season(m, ref):
    first, last = SEASONS[m["season"].lower()]
    year = int(m["year"]) if m["year"] else ref.year
    start = _month_start(year, first, ref.tzinfo)
    if not m["year"] and start > ref:
        start = _month_start(year - 1, first, ref.tzinfo)
    return start, _month_start(start.year, first + (last - first), ref.tzinfo)


@_rule(r"\b(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r",?(?:\s+(?P<year>(?:19|20)\d\d))?\b")
def _day_month(m, ref):
    return _calendar_day(ref, int(m["day"]), MONTHS[m["month"].lower()], m["year"])


@_rule(r"\b" + _MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(?P<year>(?:19|20)\d\d))?")
def _month_day(m, ref):
    return _calendar_day(ref, int(m["day"]), MONTHS[m["month"].lower()], m["year"])


@_rule(r"\b(?:in\s+|of\s+|during\s+)?" + _MONTH + r",?(?:\s+(?P<year>(?:19|20)\d\d))?\b")
def _month(m, ref):
    if m["month"].lower() == "may" and not m["year"] and not m.group(0).lower().startswith(("in", "of", "during")):
        return None  # "may" is usually the verb
    month = MONTHS[m["month"].lower()]
    year = int(m["year"]) if m["year"] else ref.year - (1 if month > ref.month else 0)
    return _month_range(year, month, ref.tzinfo)


@_rule(r"\b(?P<year>(?:19|20)\d\d)-(?P<mon>\d{2})-(?P<day>\d{2})\b")
def _iso_date(m, ref):
    try:
        start = datetime(int(m["year"]), int(m["mon"]), int(m["day"]), tzinfo=ref.tzinfo)
    except ValueError:
        return None
    return start, start + timedelta(days=1)


@_rule(r"\b(?:in\s+|since\s+|during\s+)?(?P<year>(?:19|20)\d\d)\b")
def _year(m, ref):
    year = int(m["year"])
    return datetime(year, 1, 1, tzinfo=ref.tzinfo), datetime(year + 1, 1, 1, tzinfo=ref.tzinfo)


@_rule(r"\b(?P<word>recently|lately|these days)\b")
def _recently(m, ref):
    return ref - timedelta(days=30), ref + timedelta(days=1)


def _calendar_day(ref, day, month, year):
    year = int(year) if year else ref.year - (1 if (month, day) > (ref.month, ref.day) else 0)
    try:
        start = datetime(year, month, day, tzinfo=ref.tzinfo)
    except ValueError:
        return None
    return start, start + timedelta(days=1)


_MODIFIER = re.compile(
    r"\b(?:(?P<count>\d{1,3}|"
    + "|".join(sorted(NUMBERS, key=len, reverse=True))
    + r")\s+(?P<unit>day|week|month|year)s?"
    r"\s+(?P<dir>before|after)|(?P<since>since|after|from)|(?P<until>before|until|till))\s*$",
    re.I,
)


def parse_time_ranges(text: str, reference: datetime) -> list[TimeRange]:
    """Every time expression in ``text`` as a range, resolved against ``reference`` (aware datetime).

    Overlapping matches keep the longest. "since X" extends to the reference; "before X"
    runs from a year earlier; "two weeks before X" shifts X.
    """
    spans: list[tuple[int, int, datetime, datetime]] = []
    for pattern, resolver in _RULES:
        for match in pattern.finditer(text):
            if any(s <= match.start() < e or s < match.end() <= e for s, e, _, _ in spans):
                continue
            resolved = resolver(match, reference)
            if resolved is not None:
                spans.append((match.start(), match.end(), *resolved))
    ranges = []
    for start_index, end_index, start, end in sorted(spans):
        prefix = _MODIFIER.search(text[max(0, start_index - 40) : start_index])
        label = text[start_index:end_index]
        if prefix:
            label = " ".join(prefix.group(0).split()) + " " + label
            if prefix["dir"]:
                unit = prefix["unit"].lower()
                sign = -1 if prefix["dir"].lower() == "before" else 1
                start, end = _unit_range(_shift(start, sign * _count(prefix["count"]), unit), unit)
            elif prefix["since"]:
                end = max(end, reference + timedelta(days=1))
            elif prefix["until"]:
                start, end = start - timedelta(days=365), start
        ranges.append(TimeRange(start=start, end=end, text=label.strip()))
    return ranges


_ANY_REFERENCE = datetime(2000, 6, 15, tzinfo=UTC)


def names_time(text: str) -> bool:
    """Does ``text`` contain a time expression? (Whether one matches does not depend on the reference.)"""
    return bool(parse_time_ranges(text, _ANY_REFERENCE))


def mentions_time(text: str) -> bool:
    """Does the text carry any time information of its own, resolvable or loose ("the other day")?"""
    return names_time(text) or bool(_LOOSE_TIME.search(text))


# Time an episode carries without a resolvable date: the units and deictic words of English time talk, by class
# (a unit with a modifier, a period of the day, holidays and life events), not a list of phrases.
_LOOSE_TIME = re.compile(
    r"\b(?:ago|since|recently|lately|nowadays|these\s+days|back\s+then|earlier|soon|previously|next\s+time"
    r"|for\s+the\s+first\s+time|a\s+while\s+(?:ago|back)|tonight|last\s+night"
    r"|weekends?|weeks?|months?|years?|fortnights?|decades?|semesters?"
    r"|(?:this|that|last|next|every|each|one|the\s+other|the\s+following|the\s+previous)\s+"
    r"(?:morning|afternoon|evening|night|day|time|season|summer|winter|spring|autumn)"
    r"|\d+\s+(?:days?|nights?|hours?)|(?:a|one|two|three|few|couple\s+of)\s+(?:days?|nights?|hours?)"
    r"|birthday|anniversary|holidays?|vacation|christmas|thanksgiving|halloween|easter|new\s+year'?s?"
    r"|graduation|wedding|years?\s+old)\b",
    re.I,
)
