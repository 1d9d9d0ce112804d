"""Words that name a number as something other than personal data: "order 4539 1488 0343 6467", "tracking 7749 3356
8821", "arXiv:2106.09685". A number right after one is an identifier of a thing, not a card, a phone or a national
id, whatever its digits."""

from __future__ import annotations

import re

from beliefs.defense.base import near

NOT_PERSONAL = re.compile(
    r"(?i)\b(?:order|po|p\.o\.|purchase|invoice|inv|part|sku|bin|warehouse|wh|case|ticket|meeting|build|version|ref|"
    r"tracking|serial|isbn|ean|upc|gtin|epoch|timestamp|zip(?:\+4)?(?: ?code)?|id|no\.? of|room|extension|port|pid|"
    r"job|run|"
    r"batch|ein|tin|tax|document|doc|booking|confirmation|transaction|shipment|parcel|container|asset|licen[cs]e|"
    r"policy|claim|"
    r"model|release|firmware|patch|revision|rev|imei|imsi|iccid|meid|esn|vin|s/n|sn|routing|aba|sort code|range|"
    r"reference|appointment|reservation|rma|quote|membership|loyalty|contract|cheque|lot|duns|doi|arxiv|pmid|cas|npi|"
    r"oid|asin|isin|cusip|lei|catalog|catalogue|cat\.|docket|ndc|tariff(?: code)?|hts|receipt|flight|registration|"
    r"badge|record|item|inventory(?: code)?|rgba?|colou?r|medicare(?: card)?|utr|"
    r"(?:kunden|bestell|rechnungs|artikel|auftrags|konto|steuer|versicherungs|"
    r"personal|matrikel|vertrags|sendungs|referenz|vorgangs|ticket|fall|serien|chargen)nummer|"
    r"(?:access|dial-in|dial in|pass|promo|postal|discount|product|voucher|coupon|activation|verification) code)"
    r"\b\s*(?:no\.?|num(?:bers?)?|nr\.?|#|id)?\s*[:#.=\-]?\s*(?:(?:is|was)\s+)?$"
)


def names_another_number(text: str, start: int) -> bool:
    """Whether the number at ``start`` comes right after a word that names it as something else."""
    return near(text, start, NOT_PERSONAL, 30)


def not_another_number(text: str, start: int, end: int) -> bool:
    """A detector ``check``: the number at ``start:end`` is not named as something else."""
    return not names_another_number(text, start)
