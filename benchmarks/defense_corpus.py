"""Build the labelled Memory Defense corpus (``tests/governance/defense_corpus.json``).

Positives for every kind in realistic sentences, look-alike negatives (right prefix,
wrong length; failed checksums; hashes, UUIDs, version numbers, order numbers), and
evasions (Unicode look-alikes, zero-width characters, URL encoding, base64, secrets
split by whitespace). Values are synthetic: random characters in each documented
format, with checksums computed where the format has one. Deterministic (seeded).

Usage: python benchmarks/defense_corpus.py   (rewrites the JSON)
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path
from urllib.parse import quote

from stdnum.au import tfn
from stdnum.de import idnr
from stdnum.es import dni
from stdnum.fr import nir
from stdnum.gb import utr
from stdnum.it import codicefiscale

OUT = Path(__file__).resolve().parent.parent / "tests" / "governance" / "defense_corpus.json"
rng = random.Random(20261202)
UP, LO, DG = string.ascii_uppercase, string.ascii_lowercase, string.digits
AN = UP + LO + DG
HEX = "0123456789abcdef"

# Kinds added later draw from generators of their own, so every earlier sample stays as it was.
_CODES = random.Random(20261207)


def _digits(n: int) -> str:
    return "".join(_CODES.choice(DG) for _ in range(n))


def _valid(draw, module) -> str:
    """A value from ``draw`` that passes ``module``'s check digits (drawn again until one does)."""
    while not module.is_valid(value := draw()):
        pass
    return value


def _medicare() -> str:
    """An Australian Medicare card number: eight digits, their check digit (weights 1 3 7 9 …), an issue number."""
    body = str(_CODES.randint(2, 6)) + _digits(7)
    check = sum(int(d) * w for d, w in zip(body, (1, 3, 7, 9, 1, 3, 7, 9), strict=True)) % 10
    return f"{body[:4]} {body[4:]}{check} {_CODES.randint(1, 9)}"


def r(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def luhn_complete(prefix: str, length: int) -> str:
    body = prefix + r(DG, length - len(prefix) - 1)
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d * 2 > 9 else d * 2
        total += d
    return body + str((10 - total % 10) % 10)


def iban_for(country: str, bban: str) -> str:
    digits = "".join(str(int(c, 36)) for c in bban + country + "00")
    check = 98 - int(digits) % 97
    return f"{country}{check:02d}{bban}"


def spaced(value: str) -> str:
    return " ".join(value[i : i + 4] for i in range(0, len(value), 4))


def ssn() -> str:
    while True:
        area = rng.randint(1, 899)
        if area != 666:
            return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def verhoeff_complete(body: str) -> str:
    d = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
         [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
         [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
         [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]  # fmt: skip
    p = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
         [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
         [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]  # fmt: skip
    inv = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]
    c = 0
    for i, ch in enumerate(reversed(body)):
        c = d[c][p[(i + 1) % 8][int(ch)]]
    return body + str(inv[c])


def mod11_nhs() -> str:
    while True:
        body = r(DG, 9)
        total = sum(int(ch) * (10 - i) for i, ch in enumerate(body))
        check = 11 - total % 11
        if check == 11:
            check = 0
        if check != 10:
            n = body + str(check)
            return f"{n[:3]} {n[3:6]} {n[6:]}"


def cpf() -> str:
    body = [rng.randint(0, 9) for _ in range(9)]
    for _ in range(2):
        total = sum(v * w for v, w in zip(body, range(len(body) + 1, 1, -1), strict=False))
        body.append((total * 10) % 11 % 10)
    s = "".join(map(str, body))
    return f"{s[:3]}.{s[3:6]}.{s[6:9]}-{s[9:]}"


def sin_number() -> str:
    n = luhn_complete(str(rng.randint(1, 7)), 9)
    return f"{n[:3]} {n[3:6]} {n[6:]}"


GENERATORS = {
    "aws_access_key_id": lambda: "AKIA" + r(UP + "234567", 16),
    "aws_secret_access_key": lambda: "aws_secret_access_key = " + r(AN + "/+", 40),
    "gcp_api_key": lambda: "AIza" + r(AN + "_-", 35),
    "gcp_oauth_token": lambda: "ya29." + r(AN + "_-", 60),
    "gcp_service_account_key": lambda: '"private_key_id": "' + r(HEX, 40) + '"',
    "azure_storage_key": lambda: (
        "DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=" + r(AN + "+/", 86) + "=="
    ),
    "azure_client_secret": lambda: r(AN, 3) + str(rng.randint(0, 9)) + "Q~" + r(AN + "_~.-", 34),
    "azure_sas_token": lambda: "https://x.blob.core.windows.net/c?sv=2022-11-02&sig=" + r(AN + "%", 44) + "%3D",
    "github_token": lambda: rng.choice(["ghp_", "gho_", "ghs_"]) + r(AN, 36),
    "github_fine_grained_token": lambda: "github_pat_" + r(AN + "_", 82),
    "gitlab_token": lambda: "glpat-" + r(AN + "_-", 20),
    "slack_token": lambda: "xoxb-" + r(DG, 11) + "-" + r(DG, 12) + "-" + r(AN, 24),
    "slack_webhook": lambda: (
        "https://hooks.slack.com/services/T" + r(UP + DG, 10) + "/B" + r(UP + DG, 10) + "/" + r(AN, 24)
    ),
    "stripe_secret_key": lambda: rng.choice(["sk_live_", "rk_live_", "sk_test_"]) + r(AN, 32),
    "stripe_webhook_secret": lambda: "whsec_" + r(AN, 32),
    "openai_api_key": lambda: "sk-proj-" + r(AN + "_-", 20) + "T3BlbkFJ" + r(AN + "_-", 20),
    "anthropic_api_key": lambda: "sk-ant-api03-" + r(AN + "_-", 93),
    "twilio_api_key": lambda: "SK" + r(HEX, 32),
    "twilio_account_sid": lambda: "AC" + r(HEX, 32),
    "sendgrid_api_key": lambda: "SG." + r(AN + "_-", 22) + "." + r(AN + "_-", 43),
    "npm_token": lambda: "npm_" + r(AN, 36),
    "pypi_token": lambda: "pypi-AgEIcHlwaS5vcmc" + r(AN + "_-", 60),
    "mailgun_api_key": lambda: "key-" + r(HEX, 32),
    "mailchimp_api_key": lambda: r(HEX, 32) + "-us" + str(rng.randint(1, 20)),
    "shopify_token": lambda: "shpat_" + r(HEX, 32),
    "digitalocean_token": lambda: "dop_v1_" + r(HEX, 64),
    "huggingface_token": lambda: "hf_" + r(UP + LO, 34),
    "square_token": lambda: "EAAA" + r(AN + "_-", 60),
    "discord_bot_token": lambda: "M" + r(AN, 25) + "." + r(AN, 6) + "." + r(AN + "_-", 27),
    "telegram_bot_token": lambda: r(DG, 9) + ":AA" + r(AN + "_-", 33),
    "datadog_api_key": lambda: "DD_API_KEY=" + r(HEX, 32),
    "jwt": lambda: "eyJhbGciOiJIUzI1NiJ9.eyJ" + r(AN, 40) + "." + r(AN + "_-", 43),
    "private_key": lambda: (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + r(AN + "+/", 60) + "\n-----END RSA PRIVATE KEY-----"
    ),
    "password_in_url": lambda: f"postgres://svc_{r(LO, 4)}:{r(AN, 14)}@db.internal:5432/app",
    "password_assignment": lambda: rng.choice(
        [f"password: {r(AN, 6)}!{r(DG, 3)}", f"Server=sql01;Database=crm;User Id=app;Password={r(AN, 12)};"]
    ),
    "password_in_command": lambda: rng.choice(
        [f"mysql -u root -p'{r(AN, 10)}' crm", f"curl -u ci:{r(AN, 14)} https://repo"]
    ),
    "password_in_prose": lambda: f"my vpn password is {r(AN, 8)}{r(DG, 2)}",
    "basic_auth": lambda: "Authorization: Basic " + base64.b64encode(f"svc:{r(AN, 12)}".encode()).decode(),
    "url_token": lambda: f"https://api.example.org/v1/export?access_token={r(AN, 32)}",
    "amazon_mws_token": lambda: "amzn.mws." + "-".join(r(HEX, n) for n in (8, 4, 4, 4, 12)),
    "gcp_fcm_server_key": lambda: "AAAA" + r(AN, 7) + ":" + r(AN + "_-", 140),
    "nuget_api_key": lambda: "oy2" + r(LO + DG, 43),
    "discord_webhook": lambda: f"https://discord.com/api/webhooks/{r(DG, 18)}/{r(AN + '_-', 68)}",
    "teams_webhook": lambda: (
        f"https://acme.webhook.office.com/webhookb2/{r(HEX, 32)}@{r(HEX, 32)}/IncomingWebhook/{r(HEX, 32)}"
    ),
    "zapier_webhook": lambda: f"https://hooks.zapier.com/hooks/catch/{r(DG, 7)}/{r(LO + DG, 6)}/",
    "braintree_access_token": lambda: f"access_token$production${r(LO + DG, 16)}${r(HEX, 32)}",
    "heroku_api_key": lambda: "HRKU-AA" + r(AN + "_-", 58),
    "new_relic_key": lambda: "NRAK-" + r(UP + DG, 27),
    "notion_token": lambda: "secret_" + r(AN, 43),
    "dynatrace_token": lambda: "dt0c01." + r(UP + DG, 24) + "." + r(UP + DG, 64),
    "stackhawk_api_key": lambda: "hawk." + r(AN, 20) + "." + r(AN, 20),
    "riot_api_key": lambda: "RGAPI-" + "-".join(r(HEX, n) for n in (8, 4, 4, 4, 12)),
    "facebook_access_token": lambda: "EAAG" + r(AN, 120),
    "cloudinary_url": lambda: f"cloudinary://{r(DG, 15)}:{r(AN, 27)}@acme",
    "twilio_auth_token": lambda: "TWILIO_AUTH_TOKEN=" + r(HEX, 32),
    "crypto_wallet": lambda: "payout wallet 0x" + r(HEX + "ABCDEF", 40),
    "mac_address": lambda: ":".join(r(HEX, 2) for _ in range(6)),
    "date_of_birth": lambda: f"Date of birth: {rng.randint(1, 28)} March {rng.randint(1940, 2005)}",
    "street_address": lambda: f"{rng.randint(1, 999)} Elm Street, Springfield, IL {r(DG, 5)}",
    "uk_national_insurance_number": lambda: (
        rng.choice(["AB", "JK", "ST"]) + " " + " ".join(r(DG, 2) for _ in range(3)) + " " + rng.choice("ABCD")
    ),
    "passport_number": lambda: "passport no. " + rng.choice(["C", "X", ""]) + r(DG, 8),
    "generic_api_key": lambda: f"api_key={r(AN, 32)}",
    "high_entropy_secret": lambda: r(AN, 40),
    "email": lambda: f"{r(LO, 6)}.{r(LO, 5)}@{rng.choice(['example.com', 'corp.io', 'mail.co.uk'])}",
    "credit_card": lambda: spaced(luhn_complete(rng.choice(["4", "51", "37", "6011"]), 16)),
    "iban": lambda: spaced(
        rng.choice(
            [
                lambda: iban_for("GB", r(UP, 4) + r(DG, 14)),
                lambda: iban_for("NL", r(UP, 4) + r(DG, 10)),
                lambda: iban_for("DE", r(DG, 18)),
            ]
        )()
    ),
    "us_ssn": ssn,
    "us_itin": lambda: f"9{r(DG, 2)}-{rng.choice(['70', '78', '88', '90'])}-{r(DG, 4)}",
    "uk_nhs_number": lambda: "NHS number " + mod11_nhs(),
    "in_aadhaar": lambda: (lambda n: f"{n[:4]} {n[4:8]} {n[8:]}")(
        verhoeff_complete(str(rng.randint(2, 9)) + r(DG, 10))
    ),
    "ca_sin": lambda: "SIN " + sin_number(),
    "br_cpf": cpf,
    "phone_number": lambda: rng.choice(["+1 415-555-", "(212) 555-", "+44 20 7946 "]) + r(DG, 4),
    "ipv4_address": lambda: f"{rng.randint(11, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
    "ipv6_address": lambda: ":".join(r(HEX, 4) for _ in range(8)),
    "aws_session_token": lambda: "aws_session_token = IQoJb3JpZ2luX2VjE" + r(AN + "+/", 300),
    "azure_devops_token": lambda: "Azure DevOps PAT: " + r("abcdefghijklmnopqrstuvwxyz234567", 52),
    "card_security_code": lambda: (
        _CODES.choice(["CVV ", "cvc: ", "CVV2=", "security code "])
        + f"{_CODES.randint(0, 9999):0{_CODES.choice([3, 4])}d}"
    ),
    "bank_account_number": lambda: (
        _CODES.choice(["routing 011000015, acct ", "checking account number ", "sort code 20-00-00, account "])
        + _digits(_CODES.randint(8, 12))
    ),
    "driving_licence_number": lambda: (
        _CODES.choice(["driver's license ", "driving licence no. "]) + _CODES.choice(UP) + _digits(7)
    ),
    "de_tax_id": lambda: "Steuer-ID " + _valid(lambda: str(_CODES.randint(1, 9)) + _digits(10), idnr),
    "au_tax_file_number": lambda: "TFN " + _valid(lambda: _digits(9), tfn),
    "fr_nir": lambda: "NIR " + _valid(lambda: _CODES.choice("12") + _digits(14), nir),
    "es_dni": lambda: "DNI " + _valid(lambda: _digits(8) + _CODES.choice(UP), dni),
    "it_codice_fiscale": lambda: (
        "codice fiscale "
        + _valid(
            lambda: (
                "".join(_CODES.choice(UP) for _ in range(6))
                + _digits(2)
                + _CODES.choice("ABCDEHLMPRST")
                + _digits(2)
                + _CODES.choice(UP)
                + _digits(3)
                + _CODES.choice(UP)
            ),
            codicefiscale,
        )
    ),
    "uk_utr": lambda: (
        _CODES.choice(["UTR ", "my UTR is ", "Unique Taxpayer Reference: "]) + _valid(lambda: _digits(10), utr)
    ),
    "au_medicare_number": lambda: _CODES.choice(["Medicare number ", "medicare card: "]) + _medicare(),
}
TEMPLATES = [
    "Incident note: the deploy log printed {v} before the job failed.",
    "Customer pasted {v} into the support chat by mistake.",
    "{v}",
    "Config dump from ticket #{n}: {v} (rotated since).",
]

NEGATIVES = [
    ("aws_access_key_id", "the key AKIA" + "ABCDEF" + " is too short to be real"),
    ("aws_access_key_id", "AKIAI0SFODNN7EXAMPLE1 has a zero and too many chars"),
    ("github_token", "branch ghp_feature is not a token"),
    ("github_token", "ghp_" + "abc123" * 5),
    ("stripe_secret_key", "use sk_live_ as the prefix for live keys"),
    ("openai_api_key", "the model sk-learn is not a key"),
    ("slack_token", "xoxb- tokens start like this"),
    ("jwt", "eyJ is how a JWT header starts"),
    ("private_key", "generate a private key with ssh-keygen and keep it safe"),
    ("password_assignment", "password: ********"),
    ("password_assignment", "password: <redacted>"),
    ("password_assignment", "the password is strong"),
    ("password_assignment", "password: ${DB_PASSWORD}"),
    ("password_in_url", "see https://docs.example.com/setup#auth for details"),
    ("password_assignment", "Server=sql01;Database=crm;Integrated Security=true;"),
    ("generic_api_key", "api_key=YOUR_API_KEY_HERE_PLEASE"),
    ("generic_api_key", "token: expired_and_revoked_yesterday"),
    ("high_entropy_secret", "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 fixed it"),
    ("high_entropy_secret", "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("high_entropy_secret", "request id 123e4567-e89b-12d3-a456-426614174000"),
    ("high_entropy_secret", "the_quick_brown_fox_jumps_over_the_lazy_dog_again"),
    ("high_entropy_secret", "averyveryverylongidentifierwithoutanydigitsatall"),
    ("email", "we met at the office at noon"),
    ("email", "the @channel mention pinged everyone"),
    ("email", "decorator @app.route('/x') registers a view"),
    ("credit_card", "order 4111 1111 1111 1112 failed the check"),
    ("credit_card", "tracking number 1Z999AA10123456784"),
    ("credit_card", "invoice 2026-1201-0045-7781"),
    ("iban", "GB82 WEST 1234 5698 7654 33 has a bad checksum"),
    ("iban", "DE00 0000 0000 0000 0000 00"),
    ("us_ssn", "ssn 000-12-3456 is invalid"),
    ("us_ssn", "666-45-6789 is never issued"),
    ("us_ssn", "phone extension 123-45"),
    ("us_ssn", "date 2026-12-02"),
    ("card_security_code", "CVV must be 3 digits"),
    ("card_security_code", "CVV2 checks were added in 2024"),
    ("password_in_prose", "pin 13 on the GPIO header"),
    ("password_in_prose", "PIN must be 4 digits"),
    ("bank_account_number", "CRM account 10023344 renewed"),
    ("bank_account_number", "the bank account was opened in 2019"),
    ("driving_licence_number", "software license key ABCD-1234"),
    ("de_tax_id", "Steuer-ID 36 574 261 808 (the check digit is wrong)"),
    ("es_dni", "Ich habe nie 12345678Z gesagt"),
    ("it_codice_fiscale", "order RCCMNL83S18D969X"),
    ("uk_utr", "UTR 1955839662 fails its check digit"),
    ("au_medicare_number", "Medicare 2123 45671 1 fails its check digit"),
    ("phone_number", "order 1234567 shipped"),
    ("phone_number", "build 20261202 passed"),
    ("phone_number", "version 5.0.1 released"),
    ("ipv4_address", "version 999.1.1.1 does not exist"),
    ("ipv4_address", "section 1.2.3 of the runbook"),
    ("in_aadhaar", "account 1234 5678 9012 has a bad checksum"),
    ("br_cpf", "123.456.789-00 fails the check digits"),
    ("twilio_api_key", "SKU 12345 is out of stock"),
    ("mailchimp_api_key", "the us-east-1 region"),
    ("telegram_bot_token", "time 12:30:45 AA battery"),
    ("azure_client_secret", "Q~ looks odd but is not a secret"),
    ("discord_bot_token", "Mr. Smith.signed.the.contract"),
    (None, "The disk on db-3 filled up during the nightly backup."),
    (None, "Alice moved to Berlin last month and now works at Globex."),
    (None, "p99 latency was 480 ms against a 40 ms baseline at 02:10."),
    (None, "We offered acme-corp the discount-10 play; they churned 60 days later."),
    (None, "Run `kubectl rollout restart deployment/api` then check the pods."),
    (None, "SELECT count(*) FROM orders WHERE created_at > now() - interval '1 day';"),
    (None, "The ticket INC-4411 was closed by the on-call analyst."),
    (None, "Temperatures ranged from 12.5 to 14.2 degrees over 3 days."),
    (None, "Use base64 to encode binary attachments before upload."),
    (None, "Our Q3 revenue grew 12% to $4.1M, up from $3.6M."),
    (None, "The docs live at https://docs.example.com/guide/start."),
    (None, "Call the API with the header Authorization: Bearer <your key>."),
    (None, "Error code E1042 appeared 17 times between 09:00 and 09:15."),
    (None, "The package version is 2.13.0 and requires Python 3.11."),
    (None, "ISBN 978-3-16-148410-0 is the reference edition."),
    (None, "Coordinates 52.5200, 13.4050 mark the office."),
    (None, "MAC 00:00:00:00:00:00 is the null address in the docs."),
    (None, "He said: password resets are handled by the IT desk."),
    (None, "Meeting moved to 2026-12-03 at 14:00 UTC."),
]

ZERO_WIDTH = "\u200b"
CYRILLIC = str.maketrans("aeopcxAEOPCX", "аеорсхАЕОРСХ")


def evasions() -> list[dict]:
    out = []
    for kind in [
        "github_token",
        "aws_access_key_id",
        "openai_api_key",
        "slack_token",
        "stripe_secret_key",
        "npm_token",
    ]:
        value = GENERATORS[kind]()
        half = len(value) // 2
        out.append(
            {"text": f"token part one {value[:half]}\n{value[half:]} end", "kinds": [kind], "group": "evasion-split"}
        )
        out.append({"text": f"here: {ZERO_WIDTH.join(value)}", "kinds": [kind], "group": "evasion-zero-width"})
        out.append(
            {"text": f"encoded {base64.b64encode(value.encode()).decode()}", "kinds": [kind], "group": "evasion-base64"}
        )
    for _ in range(4):
        email = GENERATORS["email"]()
        out.append({"text": f"mailto link ?to={quote(email)}", "kinds": ["email"], "group": "evasion-url"})
        out.append({"text": "contact " + email.translate(CYRILLIC), "kinds": ["email"], "group": "evasion-lookalike"})
        full = email.replace("@", "＠")
        out.append({"text": f"fullwidth {full}", "kinds": ["email"], "group": "evasion-lookalike"})
    for _ in range(3):
        token = GENERATORS["github_token"]()
        out.append(
            {
                "text": f"url encoded %67%68{quote(token[2:], safe='')}",
                "kinds": ["github_token"],
                "group": "evasion-url",
            }
        )
        card = GENERATORS["credit_card"]()
        out.append({"text": "card " + ZERO_WIDTH.join(card), "kinds": ["credit_card"], "group": "evasion-zero-width"})
    for _ in range(3):
        user, domain = r(LO, 6), rng.choice(["example", "corp"])
        out.append(
            {"text": f"reach me at {user} [at] {domain} [dot] com", "kinds": ["email"], "group": "evasion-obfuscated"}
        )
        out.append(
            {"text": f"reach me at {user}(at){domain}(dot)io", "kinds": ["email"], "group": "evasion-obfuscated"}
        )
    # Known limits, kept in the corpus so the report shows them: these are not caught today.
    token = GENERATORS["github_token"]()
    double = base64.b64encode(base64.b64encode(token.encode())).decode()
    out.append({"text": f"double encoded {double}", "kinds": ["github_token"], "group": "evasion-known-limit"})
    out.append(
        {
            "text": "rot13: " + token.translate(str.maketrans(LO + UP, LO[13:] + LO[:13] + UP[13:] + UP[:13])),
            "kinds": ["github_token"],
            "group": "evasion-known-limit",
        }
    )
    out.append(
        {
            "text": "call four one five, five five five, two six seven one",
            "kinds": ["phone_number"],
            "group": "evasion-known-limit",
        }
    )
    return out


def build() -> list[dict]:
    corpus = []
    for kind, generate in GENERATORS.items():
        for n, template in enumerate(TEMPLATES):
            corpus.append({"text": template.format(v=generate(), n=1000 + n), "kinds": [kind], "group": "positive"})
    corpus.append(
        {
            "text": f"mail {GENERATORS['email']()} and call {GENERATORS['phone_number']()}",
            "kinds": ["email", "phone_number"],
            "group": "positive",
        }
    )
    for kind, text in NEGATIVES:
        corpus.append({"text": text, "kinds": [], "group": "negative", "lookalike_of": kind})
    corpus += evasions()
    return corpus


if __name__ == "__main__":
    corpus = build()
    OUT.write_text(json.dumps(corpus, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(corpus)} samples to {OUT}")
