"""Street addresses by their shape, in the layouts of several countries, wherever they stand in a text.

An address is found from its core, the street and house number, in one of these forms:

- a house number, the street's name and a street type ("742 Evergreen Terrace", "12 rue de la Paix",
  "1600 Pennsylvania Avenue NW"), the type in any case;
- a street word first, its name, then the number ("Via Roma 10", "Calle de Alcalá 45", "Av. Paulista, 1578",
  "ul. Marszałkowska 84/92");
- a street type joined to the name, then the number ("Hauptstraße 5", "Keizersgracht 123", "Drottninggatan 53",
  "Nørregade 10", "Berliner Straße 12");
- a Japanese block address ("1-2-3 Marunouchi, Chiyoda-ku") and post-office boxes.

The span then takes in what follows as far as it reads as the rest of an address: a flat or suite, towns
(capitalised words), state, province and region codes, postcodes of many countries (US ZIP, UK, Canada,
Netherlands, Brazil, Japan, Poland, Sweden, four to six digits), and a flat or unit written before the number.
Lower-case addresses ("42 elm street, springfield") count only after words that introduce one ("my address
is", "ship to", "lives at"). Every part has a bounded length, so each form is run only in the windows around
its skeleton (``narrow``).
"""

from __future__ import annotations

import re

from ahocorasick_rs import AhoCorasick

_SUFFIXES = (
    "street|st|road|rd|avenue|ave|av|boulevard|blvd|lane|ln|drive|dr|terrace|terr?|way|court|ct|place|pl|parkway|"
    "pkwy|highway|hwy|close|crescent|cres|square|sq|loop|circle|cir|row|walk|gardens|grove|mews|trail|trl|plaza|"
    "alley|quay|wharf|rise|hill|park|view|heights|hts|point|ridge|green|path|pike|turnpike|expressway|expy|"
    "freeway|fwy|route|rte|cove|bend|crossing|xing|commons|hollow|glen|meadows?|manor|esplanade|parade|pde|"
    "embankment|broadway|circus|vale|passage|promenade|chase|approach|crest|causeway|boardwalk|court?yard|tce|cct|"
    "cl|gr|gdns|crt|bvd|esp|mall|market|marg|nagar"
)
# Further road types of the Australian standard (AS 4590) and elsewhere. Many are also ordinary words ("Key",
# "End", "Centre"), so an address ending in one counts only when a state or postcode follows within its tail.
_WIDE_SUFFIXES = (
    "access|alleyway|amble|anchorage|arcade|artery|basin|beach|boulevarde|brace|brae|break|bridge|brow|bypass|byway|"
    "centre|centreway|circlet|circuit|colonnade|common|concourse|copse|corner|corso|cross|crossroad|crossway|"
    "cruiseway|cul-de-sac|cutting|dale|dell|deviation|dip|distributor|driveway|edge|elbow|end|entrance|estate|"
    "extension|fairway|firetrail|fire track|follow|footway|foreshore|formation|front|frontage|gap|garden|gate|gates|"
    "glade|grange|ground|gully|highroad|interchange|intersection|junction|key|landing|laneway|lees|line|link|little|"
    "lookout|lower|meander|mew|motorway|mount|nook|outlook|parklands|part|pass|pathway|piazza|plateau|pocket|port|"
    "quad|quadrangle|quadrant|quays|ramble|ramp|range|reach|reserve|rest|retreat|ride|ridgeway|ring|river|riverway|"
    "riviera|roads|roadside|roadway|ronde|rosebowl|rotary|round|run|siding|slope|sound|spur|stairs|steps|strand|"
    "strip|subway|tarn|thoroughfare|tollway|top|tor|towers|track|trailer|triangle|trunkway|turn|underpass|upper|"
    "viaduct|villas|vista|wade|walkway|wynd"
)
_STREET_FIRST = (
    "rue|avenue|av|avda|avenida|boulevard|bd|blvd|place|impasse|allée|allee|chemin|quai|cours|route|via|viale|"
    "corso|piazza|piazzale|largo|vicolo|calle|c/|carrer|passeig|paseo|plaza|plaça|camino|ronda|travesía|rua|"
    "travessa|praça|alameda|estrada|rodovia|ulica|ul|aleja|al|plac|strada|calea|bulevardul|odos|utca|jalan|jln|jl|"
    "lorong|soi|thanon|ulitsa|prospekt|iela|gatve|rruga|sokak|caddesi|cad"
)
_GLUED = (
    "straße|strasse|str\\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|steig|markt|straat|laan|gracht|plein|"
    "kade|singel|dijk|steeg|gatan|vägen|gata|väg|torget|gränd|vej|gade|allé|stræde|veien|vegen|gate|katu|tie|kuja|"
    "út|utca|körút|tér|náměstí|ulice|třída|caddesi|sokak|sokağı|bulvarı|ulitsa|prospekt|pereulok|shosse"
)
_DIRECTION = r"(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\.?"
_NUMBER = r"\d{1,5}[A-Za-z]?(?:[-/]\d{1,5}[A-Za-z]?)?(?:[ \t](?:bis|ter|quater)\b)?"
_CAPITAL = r"[A-ZÀ-ÝĀ-Ž]"
_WORD = rf"(?:{_CAPITAL}[a-z]{{0,2}}\.|{_CAPITAL}[\w'’\-]{{0,30}}+)"  # "St." or "Mt." keep their dot
_NAME = rf"(?:{_WORD}|\d{{1,3}}(?:st|nd|rd|th)|[dlDL]['’]{_CAPITAL}[\w\-]{{0,30}}+)"
_PARTICLE = (
    r"(?:(?:de|la|le|les|du|des|del|della|dei|di|da|dos|das|do|y|e|van|von|der|den|am|an|of|the|saint)(?![\w'’\-])"
    r"|st\.)"
)
_LOWER_STOP = (
    r"(?:the|a|an|this|that|these|those|my|our|your|his|her|their|its|down|up|across|along|over|by|on|in|of|and|"
    r"or|to|from|same|next|other|one|two|three|four|five|ten|blocks?|minutes?|miles?|km|meters?|metres?|times?|"
    r"more|less|new|old|is|are|was|at|for|with|we|i|you|it)"
)
_UNIT = (
    r"(?:(?i:apt|apartment|flat|unit|suite|ste|room|rm|studio|floor|fl|level|lvl|bldg|building|block|blk|"
    r"appartement|étage|piso|puerta|wohnung)\.?\s{0,2}(?:no\.?\s{0,2})?#?\s{0,2}[A-Za-z0-9][\w\-/]{0,7}+"
    r"|#\s?\d{1,5}[A-Za-z]?(?:-\d{1,5}[A-Za-z]?)?|\d{1,2}(?:º|ª|°)\s?[A-Za-z]?)"
)
_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|"
    "PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC|PR|AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT|NSW|VIC|QLD|TAS|ACT|SA"
)
_UK_POSTCODE = (
    r"(?:GIR ?0AA|[A-PR-UWYZ](?:\d[A-HJKPSTUW]?|[A-HK-Y]\d[ABEHMNPRVWXY]?|\d\d|[A-HK-Y]\d\d?) ?\d[ABD-HJLNP-UW-Z]{2})"
)
_POSTCODE = (
    rf"(?:{_UK_POSTCODE}|[ABCEGHJ-NPRSTVXY]\d[A-Z] ?\d[A-Z]\d|\d{{4,5}}-\d{{3,4}}|〒?\d{{3}}-\d{{4}}|\d{{2}}-\d{{3}}"
    r"|\d{3} \d{2}|\d{4} ?[A-Z]{2}(?![A-Za-z])|[A-Z]{1,2}-\d{4,5}|[AC-FHKNPRTV-Y]\d{2} ?[AC-FHKNPRTV-Y0-9]{4}"
    r"|\d{4,6})"
)
# A town's words (never a postcode), then perhaps its district number ("Dublin 2")
_TOWN_WORD = rf"(?!{_POSTCODE}(?![\w\-])){_WORD}"
_TOWN = (
    rf"{_TOWN_WORD}(?:[ \t]{{1,2}}(?:{_TOWN_WORD}|{_PARTICLE}[ \t]{{1,2}}{_TOWN_WORD})){{0,2}}"
    r"(?:[ \t]\d{1,2}(?![\w\-]))?"
)
_SEPARATOR = r"(?:[ \t]{0,3}[,;][ \t]{0,3}|[ \t]{1,3}[-–][ \t]{1,3}|[ \t]{1,3}|[ \t]{0,3}\r?\n[ \t]{0,3})"
_TAIL_PART = (
    rf"(?:{_UNIT}|{_POSTCODE}(?:[ \t]{{1,3}}{_TOWN})?(?![\w\-])|(?:{_STATES}|[A-Z]{{1,3}})(?![\w\-])|{_TOWN}(?![\w\-]))"
)
_TAIL = rf"(?:{_SEPARATOR}{_TAIL_PART}){{0,6}}+"
_LOWER_TAIL = r"(?:,[ \t]{0,2}(?!" + _LOWER_STOP + r"\b)[a-z][a-z\-]{2,24}\b)?"
_UNIT_BEFORE = re.compile(
    rf"(?:{_UNIT},?|(?i:unit|apt|flat|suite|no|nr|num|number|house|haus|block|blk)\.?|(?i:no|nr)\.?[ \t]?\d{{1,5}},)"
    r"(?:[ \t]{1,3}|[ \t]{0,3}\r?\n[ \t]{0,3})$"
)

# 742 Evergreen Terrace; 1600 Pennsylvania Avenue NW; 12 rue de la Paix; 4821 W Cermak Rd Apt 2 (from the number)
_NUMBER_FIRST = re.compile(
    rf"(?<![\w.,/\-]){_NUMBER},?[ \t]{{1,3}}(?:{_DIRECTION}[ \t]{{1,3}})?"
    rf"(?:(?:(?:{_NAME}|{_PARTICLE})[ \t]{{1,3}}){{1,4}}?(?i:{_SUFFIXES})(?![\w\-])\.?(?:[ \t]\d{{1,3}}(?![\w\-]))?"
    rf"|(?i:{_STREET_FIRST})\.?(?:[ \t]{{1,3}}(?:{_PARTICLE}|{_NAME})){{1,5}})"
    rf"(?:[ \t]{{1,2}}(?:N|S|E|W|NE|NW|SE|SW)(?![\w\-]))?{_TAIL}"
)
# 311 Coolabah Access, Fremantle WA 6160 (a road type that is also a word: a state, or a UK or Canadian postcode,
# must follow; a bare four-digit number would take "Level 4 Service Centre, 2024")
_WIDE_END = rf"(?:{_STATES}|{_UK_POSTCODE}|[ABCEGHJ-NPRSTVXY]\d[A-Z] ?\d[A-Z]\d)(?![\w\-])"
_NUMBER_FIRST_WIDE = re.compile(
    rf"(?<![\w.,/\-]){_NUMBER},?[ \t]{{1,3}}(?:(?:{_NAME}|{_PARTICLE})[ \t]{{1,3}}){{1,4}}?"
    rf"(?i:{_WIDE_SUFFIXES})(?![\w\-])\.?(?=(?:{_SEPARATOR}{_TOWN}(?![\w\-])){{0,2}}{_SEPARATOR}{_WIDE_END}){_TAIL}"
)
# Via Roma 10; Calle de Alcalá 45; Av. Paulista, 1578; ul. Marszałkowska 84/92 (from the street word)
_STREET_WORD_FIRST = re.compile(
    rf"(?<![\w\-])(?i:{_STREET_FIRST})\.?(?:[ \t]{{1,3}}(?:{_PARTICLE}|{_NAME})){{1,5}},?[ \t]{{1,3}}"
    rf"{_NUMBER}(?![\w\-]){_TAIL}"
)
# Hauptstraße 5; Keizersgracht 123; Drottninggatan 53; Nørregade 10; Berliner Straße 12 (from the name)
_JOINED = re.compile(
    rf"(?<![\w\-]){_CAPITAL}[\w\-]{{0,40}}?(?:[ \t](?i:{_GLUED})|{_GLUED})[ \t]{{0,2}}(?:No[.:]?[ \t]?)?"
    rf"{_NUMBER}(?![\w\-]){_TAIL}"
)
# 1-2-3 Marunouchi, Chiyoda-ku, Tokyo 100-0005 (from the block number)
_BLOCK = re.compile(
    rf"(?<![\w\-])\d{{1,4}}-\d{{1,4}}(?:-\d{{1,4}})?[ \t]{{1,3}}{_CAPITAL}[\w\-]{{1,30}},?[ \t]{{1,3}}"
    rf"{_CAPITAL}[\w]{{1,30}}-(?:ku|shi|cho|machi|gun|ken|mura){_TAIL}"
)
# Calle 93 #11-26; Carrera 7 No. 32-16; Cra. 15 # 88-64 (a grid address: the street's number, then the crossing
# street's and the distance from it)
_GRID_STREETS = "calle|cl|carrera|cra|kr|avenida|av|diagonal|dg|transversal|tv"
_GRID = re.compile(
    rf"(?<![\w\-])(?i:{_GRID_STREETS})\.?[ \t]{{1,3}}\d{{1,3}}[A-Za-z]?"
    r"(?:[ \t]?bis)?[ \t]{0,3}(?:#|No\.?|N[°º])[ \t]{0,3}\d{1,3}[A-Za-z]?[ \t]?-[ \t]?\d{1,3}(?![\w\-])" + _TAIL
)
_BOX = re.compile(
    r"\b(?:(?:P\.?\s?O\.?\s?|(?:RR|R\.R\.|HC|Rural Route)\s?\d{1,3}\s{1,3})Box|Postfach|Apartado(?: de correos)?"
    r"|Caixa Postal)\s{1,3}\d{1,6}\b" + _TAIL
)
# lower case, after words that introduce an address: "my address is 42 elm street, springfield"
_LOWER = re.compile(
    rf"(?<![\w.,/\-]){_NUMBER}[ \t]{{1,3}}(?:(?!{_LOWER_STOP}\b)[a-z][a-z'\-]{{1,24}}[ \t]{{1,3}}){{1,3}}"
    rf"(?:{_SUFFIXES})(?![\w\-])\.?{_LOWER_TAIL}"
)
# Baker Street, London NW1 6XE; MG Road, Bengaluru 560001 (no house number: a postcode must follow)
_NAMED = re.compile(
    rf"(?<![\w\-])(?:{_NAME}[ \t]{{1,3}}){{1,3}}(?i:{_SUFFIXES})(?![\w\-])\.?"
    rf"(?=[ \t]{{0,2}},(?:{_SEPARATOR}(?:{_UNIT}|{_TOWN}|{_STATES}|[A-Z]{{1,3}})(?![\w\-])){{0,3}}{_SEPARATOR}"
    rf"{_POSTCODE}(?![\w\-])){_TAIL}"
)
INTRODUCED = re.compile(
    r"(?i)\b(?:address|addr|live[sd]?|living|moved|move|ship(?:ped|ping)?|deliver(?:ed|y)?|send|sent|mail|post|"
    r"located|residence|resides|home|house|office|billing|stay(?:ing)?|visit|at|to)\b[^.\n]{0,24}$"
)
FORMS = (_NUMBER_FIRST, _NUMBER_FIRST_WIDE, _STREET_WORD_FIRST, _JOINED, _BLOCK, _BOX, _GRID, _LOWER)

# The literal words each form turns on, found in one pass over the lower-cased text.
_SUFFIX_WORDS = {w for w in _SUFFIXES.replace("?", "").split("|")} | {"meadow", "courtyard", "ter"}
_FIRST_WORDS = set(_STREET_FIRST.split("|"))
_GRID_WORDS = set(_GRID_STREETS.split("|"))
_GLUED_WORDS = {w.replace("\\", "") for w in _GLUED.split("|")}
_BLOCK_WORDS = {"-ku", "-shi", "-cho", "-machi", "-gun", "-ken", "-mura"}
_BOX_WORDS = {"box", "postfach", "apartado", "caixa postal"}
_WIDE_WORDS = set(_WIDE_SUFFIXES.split("|")) - _SUFFIX_WORDS
_LITERALS = sorted(_SUFFIX_WORDS | _FIRST_WORDS | _GLUED_WORDS | _BLOCK_WORDS | _BOX_WORDS | _GRID_WORDS | _WIDE_WORDS)
_FINDER = AhoCorasick(_LITERALS)
_HOUSE_NUMBER = re.compile(r"\d(?<![\w.,/\-]\d)")  # (digit first: a search skips to digits)
_DIGIT_AFTER = re.compile(r"\d|\b[A-Z]{2,3}\b")  # a postcode or a state the wide road types need after them


_JOINERS = ("_", "-")  # (characters that join a word to the next, besides letters and digits)


def _from_number(pattern: re.Pattern, text: str, lo: int, hi: int, past: int):
    """The first match of ``pattern`` from a house number in ``[lo, hi)`` that reaches past ``past``."""
    for digit in _HOUSE_NUMBER.finditer(text, lo, hi):
        match = pattern.match(text, digit.start())
        if match and match.end() > past:
            return match
    return None


_NAME_START = re.compile(rf"{_CAPITAL}(?<![\w\-]{_CAPITAL})")


def _from_name(text: str, lo: int, hi: int):
    """A named street (no house number) from a capitalised word in ``[lo, hi)``, when a postcode follows it."""
    for head in _NAME_START.finditer(text, lo, hi + 1):
        match = _NAMED.match(text, head.start())
        if match and match.end() > hi:
            return match
    return None


def address_spans(text: str):
    """``(start, end)`` of each street address in ``text`` (the forms above, a flat or unit before included)."""
    lowered = text.lower()
    if len(lowered) != len(text):  # lower-casing changed the length: positions would not line up, read it all
        found = [m for form in FORMS[:-1] for m in form.finditer(text)]
    else:
        found = []
        done = -1
        for index, start, end in _FINDER.find_matches_as_indexes(lowered, overlapping=True):
            if start < done:
                continue
            word = _LITERALS[index]
            match = None
            if word in _GLUED_WORDS:  # inside the street's name: from the name's first letter
                head = start
                while head > 0 and (text[head - 1].isalnum() or text[head - 1] == "-"):
                    head -= 1
                if head == start and head > 1 and text[head - 1] in " \t":  # "Berliner Straße 12"
                    head -= 1
                    while head > 0 and text[head - 1].isalnum():
                        head -= 1
                if head < start:
                    match = _JOINED.match(text, head)
            # (the boundary tests written out: this loop sees every street word inside other words, "first", "total")
            after = text[end : end + 1]
            whole_word = not (after.isalnum() or after in _JOINERS)
            if whole_word and word not in _BLOCK_WORDS and start:
                before = text[start - 1]
                whole_word = not (before.isalnum() or before in _JOINERS)
            if match is None and not whole_word:
                continue
            if match is None and word in _SUFFIX_WORDS:
                match = _from_number(_NUMBER_FIRST, text, max(0, start - 90), start, start)
                if match is None:
                    match = _from_name(text, max(0, start - 70), start)
                if match is None and lowered[start:end] == text[start:end]:
                    lower = _from_number(_LOWER, text, max(0, start - 80), start, start)
                    if lower and INTRODUCED.search(text, max(0, lower.start() - 48), lower.start()):
                        match = lower
            if match is None and word in _FIRST_WORDS:
                match = _from_number(_NUMBER_FIRST, text, max(0, start - 12), start, start) or _STREET_WORD_FIRST.match(
                    text, start
                )
            if match is None and word in _WIDE_WORDS and _DIGIT_AFTER.search(text, end, end + 80):
                match = _from_number(_NUMBER_FIRST_WIDE, text, max(0, start - 90), start, start)
            if match is None and word in _GRID_WORDS:
                match = _GRID.match(text, start)
            if match is None and word in _BLOCK_WORDS:
                match = _from_number(_BLOCK, text, max(0, start - 50), start, start)
            if match is None and word in _BOX_WORDS:
                match = _BOX.search(text, max(0, start - 8), min(len(text), end + 200))
            if match:
                found.append(match)
                done = match.end()
    for match in found:
        begin = match.start()
        unit = _UNIT_BEFORE.search(text, max(0, begin - 32), begin)
        yield (unit.start() if unit else begin), match.end()
