# ruff: noqa: B023 -- the lambdas choose a context and are called at once, inside the loop.
"""Secrets and personal data for the held-apart corpus: values from format specifications, Faker
and vendor documentation, inside the file formats where they occur (see ``build_holdout.py``).

Each sample: ``text``, ``values`` (``family``, ``format``, ``start``, ``end``: the exact span a
scanner must cover), ``group`` (positive, evasion, placeholder, env_reference, public_material,
lookalike) and ``source``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import string
from urllib.parse import quote

import bech32
import rstr
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from faker import Faker

UP, LO, DG = string.ascii_uppercase, string.ascii_lowercase, string.digits
AN, HEX = UP + LO + DG, "0123456789abcdef"
B64 = AN + "+/"
URLSAFE = AN + "-_"


class Doc:
    """Text assembled from literal parts and labelled values."""

    def __init__(self):
        self.parts: list[str] = []
        self.values: list[dict] = []

    def add(self, *pieces) -> Doc:
        for piece in pieces:
            if isinstance(piece, tuple):
                value, family, fmt = piece
                start = sum(map(len, self.parts))
                self.values.append({"family": family, "format": fmt, "start": start, "end": start + len(value)})
                self.parts.append(value)
            else:
                self.parts.append(piece)
        return self

    @property
    def text(self) -> str:
        return "".join(self.parts)


class Builder:
    def __init__(self, rng):
        self.rng = rng
        rstr_gen = rstr.Rstr(rng)
        self.xeger = rstr_gen.xeger
        self.samples: list[dict] = []
        self.fake = {
            loc: Faker(loc)
            for loc in (
                "en_US",
                "en_GB",
                "de_DE",
                "fr_FR",
                "es_ES",
                "nl_NL",
                "it_IT",
                "en_AU",
                "en_IN",
                "en_CA",
                "ja_JP",
                "pt_BR",
            )
        }
        for n, f in enumerate(self.fake.values()):
            f.seed_instance(1500 + n)

    def r(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def pick(self, seq):
        return self.rng.choice(seq)

    def emit(self, doc: Doc | str, group: str, source: str) -> None:
        if isinstance(doc, str):
            doc = Doc().add(doc)
        self.samples.append({"group": group, "text": doc.text, "values": doc.values, "source": source})


# --- secrets -------------------------------------------------------------------------------
# (family, format, source, generator) — token layouts from the providers' documentation and
# garak's dora-derived regex list; formats with no distinctive shape (any 64-hex string, any
# UUID fragment, "linkedin" + 12 characters) are left out of that list as they name no format.
def _token_formats(b: Builder):
    x = b.xeger
    return [
        (
            "aws",
            "aws_access_key_id",
            "garak-dora:aws_access_key",
            lambda: b.pick(["AKIA", "ASIA"]) + x(r"[A-Z0-9]{16}"),
        ),
        (
            "aws",
            "amazon_mws_auth_token",
            "garak-dora:amazon_mws_auth_token",
            lambda: x(r"amzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
        ),
        ("gcp", "google_api_key", "garak-dora:google_api_key", lambda: x(r"AIza[0-9A-Za-z\-_]{35}")),
        (
            "gcp",
            "google_oauth_access_token",
            "garak-dora:google_oauth_access_key",
            lambda: "ya29." + x(r"[0-9A-Za-z\-_]{60}[0-9A-Za-z\-_]{0,60}"),
        ),
        (
            "gcp",
            "google_fcm_server_key",
            "garak-dora:google_fcm_server_key",
            lambda: x(r"AAAA[a-zA-Z0-9_\-]{7}:[a-zA-Z0-9_\-]{70}[a-zA-Z0-9_\-]{70}"),
        ),
        (
            "azure",
            "azure_client_secret",
            "spec:Microsoft Entra client secret (3 chars, digit, Q~, 31-34 chars)",
            lambda: x(r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{34}"),
        ),
        (
            "code_hosting",
            "github_pat",
            "garak-dora:github_personal_access_token",
            lambda: "ghp_" + x(r"[0-9a-zA-Z]{36}"),
        ),
        (
            "code_hosting",
            "github_oauth",
            "garak-dora:github_oauth_access_token",
            lambda: "gho_" + x(r"[0-9a-zA-Z]{36}"),
        ),
        (
            "code_hosting",
            "github_app",
            "garak-dora:github_app_token",
            lambda: b.pick(["ghu_", "ghs_"]) + x(r"[0-9a-zA-Z]{36}"),
        ),
        ("code_hosting", "github_refresh", "garak-dora:github_refresh_token", lambda: "ghr_" + x(r"[0-9a-zA-Z]{76}")),
        (
            "code_hosting",
            "github_fine_grained_pat",
            "spec:GitHub fine-grained PAT (github_pat_ 22 _ 59)",
            lambda: "github_pat_11" + x(r"[A-Z0-9]{20}") + "_" + x(r"[A-Za-z0-9]{59}"),
        ),
        (
            "code_hosting",
            "gitlab_pat",
            "spec:GitLab personal access token (glpat- 20)",
            lambda: "glpat-" + x(r"[A-Za-z0-9_\-]{20}"),
        ),
        ("code_hosting", "npm_token", "spec:npm access token (npm_ 36)", lambda: "npm_" + x(r"[A-Za-z0-9]{36}")),
        (
            "code_hosting",
            "pypi_token",
            "garak-dora:pypi_upload_token",
            lambda: "pypi-AgEIcHlwaS5vcmc" + x(r"[A-Za-z0-9\-_]{70}[A-Za-z0-9\-_]{0,70}"),
        ),
        ("code_hosting", "nuget_api_key", "garak-dora:nuget_api_key", lambda: "oy2" + x(r"[a-z0-9]{43}")),
        (
            "code_hosting",
            "huggingface_token",
            "spec:Hugging Face user access token (hf_ 34 letters)",
            lambda: "hf_" + x(r"[A-Za-z]{34}"),
        ),
        (
            "chat_webhook",
            "slack_token",
            "garak-dora:slack_api_token",
            lambda: x(r"xox[pboa]-[0-9]{12}-[0-9]{12}-[0-9]{12}-[a-z0-9]{32}"),
        ),
        (
            "chat_webhook",
            "slack_bot_token",
            "spec:Slack bot token (xoxb-digits-digits-24)",
            lambda: "xoxb-" + x(r"[0-9]{11,13}-[0-9]{11,13}-[A-Za-z0-9]{24}"),
        ),
        (
            "payment",
            "stripe_secret_key",
            "garak-dora:stripe_standard_api_token",
            lambda: "sk_live_" + x(r"[0-9a-zA-Z]{24}"),
        ),
        (
            "payment",
            "stripe_restricted_key",
            "garak-dora:stripe_restricted_api_token",
            lambda: "rk_live_" + x(r"[0-9a-zA-Z]{24}"),
        ),
        (
            "payment",
            "stripe_secret_key_long",
            "spec:Stripe secret key (sk_live_ 99)",
            lambda: "sk_live_51" + x(r"[0-9a-zA-Z]{97}"),
        ),
        (
            "payment",
            "square_access_token",
            "spec:Square access token (sq0atp- 22)",
            lambda: "sq0atp-" + x(r"[0-9A-Za-z\-_]{22}"),
        ),
        (
            "payment",
            "square_application_secret",
            "garak-dora:square_application_secret",
            lambda: "sq0csp-" + x(r"[0-9A-Za-z\-_]{43}"),
        ),
        (
            "payment",
            "braintree_access_token",
            "garak-dora:paypal_braintree_access_token",
            lambda: x(r"access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32}"),
        ),
        (
            "payment",
            "shopify_token",
            "garak-dora:shopify_access_token",
            lambda: b.pick(["shpat_", "shpca_", "shppa_", "shpss_"]) + x(r"[a-fA-F0-9]{32}"),
        ),
        (
            "saas_api_key",
            "sendgrid_api_key",
            "garak-dora:sendgrid_token",
            lambda: x(r"SG\.[0-9A-Za-z\-_]{22}\.[0-9A-Za-z\-_]{43}"),
        ),
        ("saas_api_key", "mailgun_api_key", "garak-dora:mailgun_private_key", lambda: "key-" + x(r"[0-9a-zA-Z]{32}")),
        ("saas_api_key", "mailchimp_api_key", "garak-dora:mailchimp_api_key", lambda: x(r"[0-9a-f]{32}-us[0-9]{1,2}")),
        (
            "saas_api_key",
            "heroku_api_key",
            "spec:Heroku API key (HRKU-AA 58)",
            lambda: "HRKU-AA" + x(r"[0-9a-zA-Z_\-]{58}"),
        ),
        (
            "saas_api_key",
            "new_relic_admin_key",
            "garak-dora:new_relic_admin_api_key",
            lambda: "NRAA-" + x(r"[a-f0-9]{27}"),
        ),
        (
            "saas_api_key",
            "new_relic_insights_key",
            "garak-dora:new_relic_insights_key",
            lambda: x(r"NRI[IQ]-[A-Za-z0-9\-_]{32}"),
        ),
        (
            "saas_api_key",
            "new_relic_rest_key",
            "garak-dora:new_relic_rest_api_key",
            lambda: "NRRA-" + x(r"[a-f0-9]{42}"),
        ),
        (
            "saas_api_key",
            "new_relic_user_key",
            "spec:New Relic user key (NRAK- 27)",
            lambda: "NRAK-" + x(r"[A-Z0-9]{27}"),
        ),
        (
            "saas_api_key",
            "notion_token",
            "garak-dora:notion_integration_token",
            lambda: "secret_" + x(r"[a-zA-Z0-9]{43}"),
        ),
        (
            "saas_api_key",
            "dynatrace_token",
            "garak-dora:dynatrace_token",
            lambda: x(r"dt0[a-zA-Z][0-9]{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}"),
        ),
        (
            "saas_api_key",
            "stackhawk_api_key",
            "garak-dora:stackhawk_api_key",
            lambda: x(r"hawk\.[0-9A-Za-z\-_]{20}\.[0-9A-Za-z\-_]{20}"),
        ),
        (
            "saas_api_key",
            "riot_api_key",
            "garak-dora:riot_games_developer_api_key",
            lambda: x(r"RGAPI-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}"),
        ),
        (
            "saas_api_key",
            "facebook_access_token",
            "garak-dora:facebook_access_token",
            lambda: "EAACEdEose0cBA" + x(r"[0-9A-Za-z]{90}[0-9A-Za-z]{10,90}"),
        ),
        (
            "saas_api_key",
            "openai_project_key",
            "spec:OpenAI project key (sk-proj- …T3BlbkFJ…)",
            lambda: "sk-proj-" + x(r"[A-Za-z0-9_\-]{74}") + "T3BlbkFJ" + x(r"[A-Za-z0-9_\-]{74}"),
        ),
        (
            "saas_api_key",
            "anthropic_api_key",
            "spec:Anthropic API key (sk-ant-api03- 93 AA)",
            lambda: "sk-ant-api03-" + x(r"[A-Za-z0-9_\-]{93}") + "AA",
        ),
        (
            "saas_api_key",
            "digitalocean_token",
            "spec:DigitalOcean personal access token (dop_v1_ 64 hex)",
            lambda: "dop_v1_" + x(r"[a-f0-9]{64}"),
        ),
        ("saas_api_key", "twilio_api_key", "garak-dora:twilio_api_key", lambda: "SK" + x(r"[0-9a-f]{32}")),
    ]


_TOKEN_CONTEXTS = [
    lambda n, v: Doc().add(f"{n.upper()}=", v, "\n"),
    lambda n, v: Doc().add(f'export {n.upper()}="', v, '"\n'),
    lambda n, v: Doc().add(f"{n}: ", v, "\n"),
    lambda n, v: Doc().add('{"', n, '": "', v, '", "region": "eu-west-1"}'),
    lambda n, v: Doc().add("Here is the key you asked for: ", v, " - please rotate it after the demo."),
    lambda n, v: Doc().add("2026-03-04T10:22:11Z ERROR auth failed for token=", v, " (401 Unauthorized)"),
    lambda n, v: Doc().add(f"[default]\n{n} = ", v, "\n"),
    lambda n, v: Doc().add("Hi team,\n\nthe new credential for staging is\n\n    ", v, "\n\nThanks,\nOps"),
    lambda n, v: Doc().add(f'env:\n  - name: {n.upper()}\n    value: "', v, '"\n'),
    lambda n, v: Doc().add('curl -H "Authorization: Bearer ', v, '" https://api.example.com/v1/items'),
]


def add_tokens(b: Builder) -> None:
    for family, fmt, source, make in _token_formats(b):
        for context in b.rng.sample(_TOKEN_CONTEXTS, 5):
            b.emit(context(fmt, (make(), family, fmt)), "positive", source)


def _b64(b: Builder, nbytes: int) -> str:
    return base64.b64encode(bytes(b.rng.getrandbits(8) for _ in range(nbytes))).decode()


def add_provider_contexts(b: Builder) -> None:
    """Credentials whose shape alone is not distinctive, in the places the vendors' documentation shows them."""
    aws = lambda: (b.pick(["AKIA", "ASIA"]) + b.xeger(r"[A-Z0-9]{16}"), "aws", "aws_access_key_id")  # noqa: E731
    for _ in range(8):
        secret = (b.r(B64, 40), "aws", "aws_secret_access_key")
        b.emit(
            Doc().add("[default]\naws_access_key_id = ", aws(), "\naws_secret_access_key = ", secret, "\n"),
            "positive",
            "spec:AWS shared credentials file",
        )
    for _ in range(4):
        b.emit(
            Doc().add(
                "AWS_ACCESS_KEY_ID=", aws(), "\nAWS_SECRET_ACCESS_KEY=", (b.r(B64, 40), "aws", "aws_secret_access_key")
            ),
            "positive",
            "spec:AWS CLI environment variables",
        )
        b.emit(
            Doc().add(
                '{"Credentials": {"AccessKeyId": "',
                aws(),
                '", "SecretAccessKey": "',
                (b.r(B64, 40), "aws", "aws_secret_access_key"),
                '", "Expiration": "2026-05-01T12:00:00Z"}}',
            ),
            "positive",
            "spec:AWS STS AssumeRole output",
        )
        b.emit(
            Doc().add(
                "The IAM user's secret access key is ",
                (b.r(B64, 40), "aws", "aws_secret_access_key"),
                " and it was created yesterday.",
            ),
            "positive",
            "spec:AWS secret access key (40 base64) in prose",
        )
    b.emit(
        Doc().add(
            "aws_access_key_id = ",
            ("AKIAIOSFODNN7EXAMPLE", "aws", "aws_access_key_id"),
            "\naws_secret_access_key = ",
            ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws", "aws_secret_access_key"),
        ),
        "positive",
        "doc:AWS IAM user guide example access key",
    )
    for _ in range(8):
        key = (_b64(b, 64), "azure", "azure_storage_account_key")
        name = b.pick(["contosostore", "mystorageacct", "prodlogs01", "backupsweu"])
        b.emit(
            b.pick(
                [
                    lambda: Doc().add(
                        f"DefaultEndpointsProtocol=https;AccountName={name};AccountKey=",
                        key,
                        ";EndpointSuffix=core.windows.net",
                    ),
                    lambda: Doc().add(f'az storage container list --account-name {name} --account-key "', key, '"'),
                    lambda: Doc().add("AZURE_STORAGE_KEY=", key, "\n"),
                    lambda: Doc().add('[{"keyName": "key1", "permissions": "FULL", "value": "', key, '"}]'),
                ]
            )(),
            "positive",
            "spec:Azure storage account key (64 bytes base64)",
        )
    for _ in range(4):
        sig = (quote(_b64(b, 32), safe=""), "azure", "azure_sas_signature")
        b.emit(
            Doc().add(
                "https://contoso.blob.core.windows.net/reports/q1.pdf?sv=2022-11-02&ss=b&srt=o&sp=r"
                "&se=2026-06-01T00:00:00Z&spr=https&sig=",
                sig,
            ),
            "positive",
            "spec:Azure SAS URI",
        )
    for _ in range(6):
        sid = ("AC" + b.r(HEX, 32), "saas_api_key", "twilio_account_sid")
        token = (b.r(HEX, 32), "saas_api_key", "twilio_auth_token")
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("TWILIO_ACCOUNT_SID=", sid, "\nTWILIO_AUTH_TOKEN=", token, "\n"),
                    lambda: Doc().add(
                        "account_sid = '",
                        sid,
                        "'\nauth_token = '",
                        token,
                        "'\nclient = Client(account_sid, auth_token)",
                    ),
                    lambda: Doc().add(
                        "curl -X POST https://api.twilio.com/2010-04-01/Accounts/",
                        sid,
                        "/Messages.json -u ",
                        (sid[0] + ":" + token[0], "saas_api_key", "twilio_basic_auth"),
                    ),
                ]
            )(),
            "positive",
            "spec:Twilio account SID and auth token (32 hex)",
        )
    for _ in range(6):
        api, app = (b.r(HEX, 32), "saas_api_key", "datadog_api_key"), (b.r(HEX, 40), "saas_api_key", "datadog_app_key")
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("DD_API_KEY=", api, "\nDD_APP_KEY=", app, "\nDD_SITE=datadoghq.eu\n"),
                    lambda: Doc().add("## datadog.yaml\napi_key: ", api, "\nsite: datadoghq.com\nlogs_enabled: true\n"),
                    lambda: Doc().add(
                        'curl -X GET "https://api.datadoghq.com/api/v1/validate" -H "DD-API-KEY: ',
                        api,
                        '" -H "DD-APPLICATION-KEY: ',
                        app,
                        '"',
                    ),
                    lambda: Doc().add("docker run -d -e DD_API_KEY=", api, " gcr.io/datadoghq/agent:7"),
                ]
            )(),
            "positive",
            "spec:Datadog API key (32 hex) and application key (40 hex)",
        )
    for _ in range(5):
        uuid = b.fake["en_US"].uuid4()
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("HEROKU_API_KEY=", (uuid, "saas_api_key", "heroku_api_key_uuid"), "\n"),
                    lambda: Doc().add(
                        "machine api.heroku.com\n  login me@example.org\n  password ",
                        (uuid, "saas_api_key", "heroku_api_key_uuid"),
                        "\n",
                    ),
                ]
            )(),
            "positive",
            "spec:Heroku legacy API key (UUID) in .netrc / env",
        )
    for _ in range(4):
        b.emit(
            Doc().add("facebook_app_secret = '", (b.r(HEX, 32), "saas_api_key", "facebook_app_secret"), "'"),
            "positive",
            "garak-dora:facebook_secret_key",
        )
        b.emit(
            Doc().add('TWITTER_CONSUMER_SECRET="', (b.r(LO + DG, 44), "saas_api_key", "twitter_secret"), '"'),
            "positive",
            "garak-dora:twitter_secret_key",
        )
    # Tokens inside URLs
    for _ in range(5):
        bot = (f"{b.rng.randint(10**8, 10**10 - 1)}:AA{b.r(URLSAFE, 33)}", "chat_webhook", "telegram_bot_token")
        b.emit(
            Doc().add("curl https://api.telegram.org/bot", bot, "/sendMessage -d chat_id=-1001234 -d text=deployed"),
            "positive",
            "spec:Telegram Bot API URL",
        )
        b.emit(
            Doc().add(
                "SLACK_WEBHOOK_URL=",
                (
                    f"https://hooks.slack.com/services/T{b.r(UP + DG, 8)}/B{b.r(UP + DG, 10)}/{b.r(AN, 24)}",
                    "chat_webhook",
                    "slack_webhook",
                ),
            ),
            "positive",
            "garak-dora:slack_webhook",
        )
        b.emit(
            Doc().add(
                "webhook: ",
                (
                    f"https://discord.com/api/webhooks/{b.r(DG, 18)}/{b.r(URLSAFE, 68)}",
                    "chat_webhook",
                    "discord_webhook",
                ),
            ),
            "positive",
            "garak-dora:discord_webhook",
        )
        b.emit(
            Doc().add(
                "Zap trigger: ",
                (
                    f"https://hooks.zapier.com/hooks/catch/{b.r(DG, 7)}/{b.r(LO + DG, 6)}/",
                    "chat_webhook",
                    "zapier_webhook",
                ),
            ),
            "positive",
            "garak-dora:zapier_webhook",
        )
        b.emit(
            Doc().add(
                "GET https://api.example-crm.com/v2/contacts?limit=50&access_token=",
                (b.r(AN, 40), "saas_api_key", "url_access_token"),
                " 200 OK",
            ),
            "positive",
            "spec:OAuth 2.0 bearer token in a URI query (RFC 6750 §2.3)",
        )
    for _ in range(4):
        b.emit(
            Doc().add(
                "cloudinary_url: ",
                (f"cloudinary://{b.r(DG, 15)}:{b.r(URLSAFE, 27)}@demo-cloud", "saas_api_key", "cloudinary_url"),
            ),
            "positive",
            "garak-dora:cloudinary_credentials",
        )
        b.emit(
            Doc().add(
                "Incoming webhook: ",
                (
                    f"https://outlook.office.com/webhook/{b.fake['en_US'].uuid4()}@{b.fake['en_US'].uuid4()}"
                    f"/IncomingWebhook/{b.r(HEX, 32)}/{b.fake['en_US'].uuid4()}",
                    "chat_webhook",
                    "teams_webhook",
                ),
            ),
            "positive",
            "garak-dora:microsoft_teams_webhook",
        )


def _password(b: Builder) -> str:
    f = b.fake["en_US"]
    return b.pick(
        [
            lambda: f.password(length=b.rng.randint(10, 18), special_chars=b.rng.random() < 0.6),
            lambda: f.word().capitalize() + str(b.rng.randint(1970, 2026)) + b.pick("!#$%?"),
            lambda: "-".join(f.words(4)),
            lambda: f.password(length=12, special_chars=False, upper_case=True),
        ]
    )()


def add_passwords(b: Builder) -> None:
    f = b.fake["en_US"]
    contexts = [
        lambda p: Doc().add("database:\n  host: db.internal\n  user: app\n  password: '", p, "'\n"),
        lambda p: Doc().add("mysql:\n  user: root\n  pwd: '", p, "'\n"),
        lambda p: Doc().add('db_password = "', p, '"\n'),
        lambda p: Doc().add("DB_PASSWORD=", p, "\n"),
        lambda p: Doc().add(
            "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: ", p, "\n"
        ),
        lambda p: Doc().add("spring.datasource.username=app\nspring.datasource.password=", p, "\n"),
        lambda p: Doc().add("jdbc:postgresql://db.internal:5432/orders?user=app&password=", p),
        lambda p: Doc().add("redis://:", p, "@cache.internal:6379/0"),
        lambda p: Doc().add("postgres://app:", p, "@db.internal:5432/orders"),
        lambda p: Doc().add("mongodb+srv://admin:", p, "@cluster0.ab1cd.mongodb.net/test?retryWrites=true"),
        lambda p: Doc().add("db.internal:5432:orders:app:", p, "\n"),
        lambda p: Doc().add("mysql -u root -p'", p, "' orders < dump.sql"),
        lambda p: Doc().add("CREATE USER reporting IDENTIFIED BY '", p, "';"),
        lambda p: Doc().add("ALTER ROLE app WITH LOGIN PASSWORD '", p, "';"),
        lambda p: Doc().add("machine ftp.example.com\nlogin deploy\npassword ", p, "\n"),
        lambda p: Doc().add("curl -u deploy:", p, " https://nexus.internal/repository/releases/"),
        lambda p: Doc().add("My password for the VPN is ", p, " if you need to get in while I'm away."),
        lambda p: Doc().add("The wifi password is ", p),
        lambda p: Doc().add("PGPASSWORD=", p, " psql -h db.internal -U app orders"),
        lambda p: Doc().add('{"username": "svc-backup", "password": "', p, '"}'),
        lambda p: Doc().add("ansible_user: deploy\nansible_password: ", p, "\n"),
        lambda p: Doc().add("echo '", p, "' | docker login registry.example.com -u ci --password-stdin"),
        lambda p: Doc().add("Server=sql01;Database=Sales;User Id=report;Password=", p, ";"),
        lambda p: Doc().add("[client]\nuser=backup\npassword=", p, "\n"),
        lambda p: Doc().add('smtp_pass: "', p, '"\n'),
        lambda p: Doc().add("admin credentials: admin / ", p),
    ]
    for context in contexts:
        for _ in range(3):
            b.emit(
                context((_password(b), "password", "password")),
                "positive",
                "spec:password in a configuration or shell format",
            )
    for _ in range(8):
        user, pw = f.user_name(), _password(b)
        encoded = base64.b64encode(f"{user}:{pw}".encode()).decode()
        b.emit(
            Doc().add(
                "GET /admin HTTP/1.1\nHost: intranet.example.com\nAuthorization: Basic ",
                (encoded, "password", "http_basic_auth"),
                "\n",
            ),
            "positive",
            "spec:RFC 7617 Basic authentication",
        )


def _jwt(b: Builder) -> str:
    f = b.fake["en_US"]
    header = {"alg": b.pick(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    payload = {"sub": str(f.random_int(1000, 99999)), "name": f.name(), "iat": 1700000000 + f.random_int(0, 10**7)}
    enc = lambda o: base64.urlsafe_b64encode(json.dumps(o, separators=(",", ":")).encode()).rstrip(b"=").decode()  # noqa: E731
    body = f"{enc(header)}.{enc(payload)}"
    sig = hmac.new(f.sha1().encode(), body.encode(), hashlib.sha256).digest()
    return body + "." + base64.urlsafe_b64encode(sig).rstrip(b"=").decode()


def add_jwts_and_keys(b: Builder) -> None:
    rfc = (
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxl"
        "LmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    )
    b.emit(Doc().add("Example from the spec: ", (rfc, "jwt", "jwt"), "."), "positive", "doc:RFC 7519 §3.1 example JWT")
    for context in [
        lambda v: Doc().add("Authorization: Bearer ", v),
        lambda v: Doc().add("Set-Cookie: session=", v, "; Path=/; HttpOnly"),
        lambda v: Doc().add('{"access_token": "', v, '", "token_type": "Bearer", "expires_in": 3600}'),
        lambda v: Doc().add("INFO request user=42 jwt=", v, " path=/api/orders"),
        lambda v: Doc().add("here's my token if you want to reproduce: ", v),
    ]:
        for _ in range(3):
            b.emit(context((_jwt(b), "jwt", "jwt")), "positive", "spec:RFC 7519 JWT (HS256/RS256 layout)")
    keys = []
    for _ in range(2):
        k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        keys.append(
            (
                "rsa_pkcs1",
                k.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.TraditionalOpenSSL,
                    serialization.NoEncryption(),
                ),
            )
        )
        keys.append(
            (
                "rsa_pkcs8",
                k.private_bytes(
                    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
                ),
            )
        )
    for _ in range(2):
        k = ec.generate_private_key(ec.SECP256R1())
        keys.append(
            (
                "ec_sec1",
                k.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.TraditionalOpenSSL,
                    serialization.NoEncryption(),
                ),
            )
        )
        e = ed25519.Ed25519PrivateKey.generate()
        keys.append(
            (
                "openssh_ed25519",
                e.private_bytes(
                    serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
                ),
            )
        )
        keys.append(
            (
                "pkcs8_encrypted",
                e.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.PKCS8,
                    serialization.BestAvailableEncryption(b"correct horse"),
                ),
            )
        )
    for fmt, pem in keys:
        text = pem.decode().strip()
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("Here is the deploy key:\n", (text, "private_key", fmt), "\n"),
                    lambda: Doc().add("$ cat ~/.ssh/id_key\n", (text, "private_key", fmt), "\n$ "),
                ]
            )(),
            "positive",
            "spec:PEM / OpenSSH private key generated with cryptography",
        )
    k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = k.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    escaped = json.dumps(pem)[1:-1]
    b.emit(
        Doc().add(
            '{\n  "type": "service_account",\n  "project_id": "demo-project",\n  "private_key_id": "',
            (b.r(HEX, 40), "gcp", "gcp_private_key_id"),
            '",\n  "private_key": "',
            (escaped, "private_key", "gcp_service_account_pem"),
            '",\n  "client_email": "svc@demo-project.iam.gserviceaccount.com"\n}',
        ),
        "positive",
        "spec:Google Cloud service account key file",
    )


def add_wallets(b: Builder) -> None:
    vectors = [  # BIP-173 / BIP-350 valid mainnet addresses, EIP-55 checksum test vectors
        ("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "doc:BIP-173 test vector"),
        ("bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3", "doc:BIP-173 test vector"),
        ("bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y", "doc:BIP-350 test vector"),
        ("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", "doc:BIP-350 test vector"),
        ("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "doc:EIP-55 test vector"),
        ("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", "doc:EIP-55 test vector"),
        ("0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "doc:EIP-55 test vector"),
        ("0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb", "doc:EIP-55 test vector"),
    ]
    for _ in range(8):
        program = [b.rng.getrandbits(8) for _ in range(b.pick([20, 32]))]
        vectors.append((bech32.encode("bc", 0, program), "spec:BIP-173 segwit v0 address (bech32 reference encoder)"))
    for _ in range(4):
        vectors.append(("0x" + b.r(HEX, 40), "spec:Ethereum address (20 bytes hex)"))
    contexts = [
        lambda v: Doc().add("Send the refund to my wallet ", v, " please."),
        lambda v: Doc().add("payout_address: ", v, "\n"),
        lambda v: Doc().add("Donations: ", v),
        lambda v: Doc().add("User updated withdrawal address to ", v, " at 14:02."),
    ]
    for value, source in vectors:
        b.emit(
            b.pick(contexts)((value, "crypto_wallet", "btc" if value.lower().startswith("bc1") else "eth")),
            "positive",
            source,
        )


# --- personal data ----------------------------------------------------------------------------
def _nino(b: Builder) -> str:
    first = [c for c in UP if c not in "DFIQUV"]
    second = [c for c in UP if c not in "DFIQUVO"]
    while True:
        prefix = b.pick(first) + b.pick(second)
        if prefix not in {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}:
            return prefix + b.r(DG, 6) + b.pick("ABCD")


def add_personal(b: Builder) -> None:
    us, gb = b.fake["en_US"], b.fake["en_GB"]
    for _ in range(25):
        f = b.fake[b.pick(list(b.fake))]
        email = (
            b.pick(
                [
                    f.email,
                    f.company_email,
                    f.free_email,
                    lambda: f.first_name().lower() + "." + f.last_name().lower() + "@" + f.domain_name(),
                ]
            )(),
            "email",
            "email",
        )
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("Please contact ", email, " for access."),
                    lambda: Doc().add("From: ", f.name(), " <", email, ">\nSubject: invoice\n"),
                    lambda: Doc().add('<a href="mailto:', email, '">write to us</a>'),
                    lambda: Doc().add('{"customer": {"email": "', email, '", "plan": "pro"}}'),
                    lambda: Doc().add("user ", email, " logged in from the mobile app"),
                ]
            )(),
            "positive",
            f"faker:{f._locales[0]}.email",
        )
    phone_locales = [
        "en_US",
        "en_GB",
        "de_DE",
        "fr_FR",
        "es_ES",
        "nl_NL",
        "it_IT",
        "en_AU",
        "en_IN",
        "en_CA",
        "ja_JP",
        "pt_BR",
    ]
    for n in range(48):
        loc = phone_locales[n % len(phone_locales)]
        phone = (b.fake[loc].phone_number(), "phone", f"phone_{loc}")
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("Call me on ", phone, " after 5pm."),
                    lambda: Doc().add("Tel: ", phone, "\n"),
                    lambda: Doc().add("customer callback number ", phone, " (left voicemail)"),
                    lambda: Doc().add('"phone": "', phone, '"'),
                ]
            )(),
            "positive",
            f"faker:{loc}.phone_number",
        )
    fictional = [
        "(881) 555-0194",
        "212-555-0187",
        "+1 415 555 0132",
        "020 7946 0692",
        "0161 496 0753",
        "+447700900444",
        "07700 900982",
        "+44 7700 900123",
        "(0)20 7946 0018",
        "+1-202-555-0143",
    ]
    for number in fictional:
        b.emit(
            Doc().add(
                b.pick(["Reach the owner at ", "Mobile: ", "ring ", "phone number is "]),
                (number, "phone", "phone_fictional"),
            ),
            "positive",
            "doc:NANP 555-01xx and Ofcom drama numbers (reserved for fiction)",
        )
    for _ in range(24):
        ssn = us.ssn()
        form = b.pick(["dash", "space", "plain"])
        value = ssn if form == "dash" else ssn.replace("-", " ") if form == "space" else ssn.replace("-", "")
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("SSN: ", (value, "us_ssn", f"ssn_{form}")),
                    lambda: Doc().add("Social Security number ", (value, "us_ssn", f"ssn_{form}"), " on the W-4"),
                    lambda: Doc().add("applicant ssn=", (value, "us_ssn", f"ssn_{form}"), " dob verified"),
                ]
            )(),
            "positive",
            "faker:en_US.ssn",
        )
    for _ in range(6):
        b.emit(
            Doc().add("ITIN ", (us.itin(), "us_ssn", "itin"), " was used on the 1040."), "positive", "faker:en_US.itin"
        )
    for _ in range(20):
        raw = _nino(b)
        value = b.pick([raw, f"{raw[:2]} {raw[2:4]} {raw[4:6]} {raw[6:8]} {raw[8]}"])
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("National Insurance number: ", (value, "uk_nino", "nino")),
                    lambda: Doc().add("NI No. ", (value, "uk_nino", "nino"), "\n"),
                    lambda: Doc().add("her NINO is ", (value, "uk_nino", "nino"), ", payroll has it"),
                ]
            )(),
            "positive",
            "spec:HMRC National Insurance number format (NIM39110)",
        )
    for _ in range(18):
        loc = b.pick(["en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT"])
        value = (b.fake[loc].passport_number(), "passport", f"passport_{loc}")
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("Passport No.: ", value, "\n"),
                    lambda: Doc().add("passport number ", value, " expires 2031"),
                    lambda: Doc().add("Passport #", value),
                ]
            )(),
            "positive",
            f"faker:{loc}.passport_number",
        )
    for _ in range(24):
        dob = us.date_of_birth(minimum_age=18, maximum_age=90)
        rendering = b.pick(["%B %-d, %Y", "%Y-%m-%d", "%m/%d/%Y", "%-d %B %Y", "%d.%m.%Y", "%d/%m/%Y"])
        value = (dob.strftime(rendering), "date_of_birth", "dob")
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("Date of birth: ", value),
                    lambda: Doc().add("DOB: ", value, "\n"),
                    lambda: Doc().add("Patient born on ", value, ", allergies: none"),
                    lambda: Doc().add("D.O.B. ", value),
                    lambda: Doc().add('"date_of_birth": "', value, '"'),
                    lambda: Doc().add("Her birthday is ", value, "."),
                ]
            )(),
            "positive",
            "faker:en_US.date_of_birth",
        )
    for _ in range(14):
        value = (
            us.street_address() + ", " + us.city() + ", " + us.state_abbr() + " " + us.zipcode(),
            "street_address",
            "us_address",
        )
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("Ship to: ", value),
                    lambda: Doc().add("I moved to ", value, " last month."),
                    lambda: Doc().add("billing address ", value, "\n"),
                ]
            )(),
            "positive",
            "faker:en_US.address",
        )
    for _ in range(14):
        value = (gb.street_address() + ", " + gb.city() + " " + gb.postcode(), "street_address", "uk_address")
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("Deliver to ", value),
                    lambda: Doc().add("Address: ", value, "\n"),
                    lambda: Doc().add("the flat at ", value, " is vacant now"),
                ]
            )(),
            "positive",
            "faker:en_GB.address",
        )
    for card_type in ["visa16", "visa13", "mastercard", "amex", "discover", "jcb16", "diners"] * 3:
        number = us.credit_card_number(card_type)
        if b.rng.random() < 0.5 and len(number) == 16:
            number = b.pick([" ", "-"]).join(number[i : i + 4] for i in range(0, 16, 4))
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("card ", (number, "payment_card", card_type), " exp 09/28"),
                    lambda: Doc().add("Please charge ", (number, "payment_card", card_type), " for the renewal."),
                ]
            )(),
            "positive",
            f"faker:en_US.credit_card_number({card_type})",
        )
    for loc in ["de_DE", "fr_FR", "nl_NL", "es_ES", "it_IT", "en_GB"] * 3:
        value = b.fake[loc].iban()
        if b.rng.random() < 0.5:
            value = " ".join(value[i : i + 4] for i in range(0, len(value), 4))
        b.emit(
            Doc().add(b.pick(["IBAN: ", "Please wire it to ", "bank account "]), (value, "iban", f"iban_{loc}")),
            "positive",
            f"faker:{loc}.iban",
        )
    for _ in range(18):
        mac = us.mac_address()
        form = b.pick(["colon", "dash", "cisco"])
        value = (
            mac
            if form == "colon"
            else mac.replace(":", "-").upper()
            if form == "dash"
            else ".".join(mac.replace(":", "")[i : i + 4] for i in (0, 4, 8))
        )
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("device MAC ", (value, "mac_address", form), " joined the guest network"),
                    lambda: Doc().add("hwaddr=", (value, "mac_address", form)),
                    lambda: Doc().add("Laptop of the new hire, MAC address: ", (value, "mac_address", form)),
                ]
            )(),
            "positive",
            "faker:en_US.mac_address",
        )
    for _ in range(12):
        value = (b.pick([us.ipv4_public, lambda: us.ipv6(network=False)])(), "ip_address", "public_ip")
        b.emit(
            b.pick(
                [
                    lambda: Doc().add("login from ", value, " (new device)"),
                    lambda: Doc().add("client_ip=", value, " status=200"),
                ]
            )(),
            "positive",
            "faker:en_US.ipv4_public/ipv6",
        )


# --- evasions ----------------------------------------------------------------------------------
_CYRILLIC = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і"}


def add_evasions(b: Builder) -> None:
    f = b.fake["en_US"]
    for _ in range(5):
        secret = b.r(B64, 40)
        encoded = base64.b64encode(secret.encode()).decode()
        b.emit(
            Doc().add(
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: aws-creds\ndata:\n  AWS_SECRET_ACCESS_KEY: ",
                (encoded, "aws", "base64_aws_secret"),
                "\n",
            ),
            "evasion",
            "spec:Kubernetes Secret data (base64)",
        )
        token = "ghp_" + b.r(AN, 36)
        encoded = base64.b64encode(f"token={token}".encode()).decode()
        b.emit(
            Doc().add("config blob: ", (encoded, "code_hosting", "base64_token")),
            "evasion",
            "spec:base64 (RFC 4648) of a token line",
        )
    for _ in range(5):
        email = f.email()
        b.emit(
            Doc().add(
                "https://app.example.com/invite?to=", (quote(email, safe=""), "email", "url_encoded_email"), "&ref=mail"
            ),
            "evasion",
            "spec:percent-encoding (RFC 3986) of an e-mail",
        )
        pw = _password(b)
        b.emit(
            Doc().add(
                "next=", (quote(f"postgres://app:{pw}@db.internal/orders", safe=""), "password", "url_encoded_dsn")
            ),
            "evasion",
            "spec:percent-encoding of a connection URL",
        )
    for _ in range(5):
        email = f.email()
        swapped = "".join(_CYRILLIC.get(ch, ch) if b.rng.random() < 0.5 else ch for ch in email)
        b.emit(
            Doc().add("write to ", (swapped, "email", "homoglyph_email")),
            "evasion",
            "spec:Unicode confusables (UTS #39)",
        )
        token = "sk_live_" + b.r(AN, 24)
        full = "".join(
            chr(ord(ch) + 0xFEE0) if ch.isascii() and ch.isalnum() and b.rng.random() < 0.4 else ch for ch in token
        )
        b.emit(
            Doc().add("stripe key ", (full, "payment", "fullwidth_token")),
            "evasion",
            "spec:Unicode full-width forms (NFKC)",
        )
    for _ in range(5):
        token = "ghp_" + b.r(AN, 36)
        zw = "".join(ch + (b.pick(["\u200b", "\ufeff", "\u200c"]) if b.rng.random() < 0.3 else "") for ch in token)
        b.emit(
            Doc().add("token: ", (zw, "code_hosting", "zero_width_token")),
            "evasion",
            "spec:zero-width / BOM interleaving",
        )
        email = f.email()
        zw = "\ufeff" + "\u200b".join(email.split("@")[0]) + "@" + email.split("@")[1]
        b.emit(
            Doc().add("contact ", (zw, "email", "zero_width_email")), "evasion", "spec:zero-width / BOM interleaving"
        )
    for _ in range(5):
        token = "ghp_" + b.r(AN, 36)
        cut = b.rng.randint(8, 30)
        b.emit(
            Doc().add("TOKEN = ", (f'"{token[:cut]}" + "{token[cut:]}"', "code_hosting", "concatenated_token"), "\n"),
            "evasion",
            "spec:string concatenation (Python)",
        )
        key = "sk_live_" + b.r(AN, 24)
        b.emit(
            Doc().add("const key = ", (f"'{key[:12]}' + '{key[12:]}'", "payment", "concatenated_token"), ";"),
            "evasion",
            "spec:string concatenation (JavaScript)",
        )
    for _ in range(6):
        user, domain = f.user_name(), f.domain_name()
        dom, tld = domain.rsplit(".", 1)
        spelled = b.pick(
            [
                f"{user} at {dom} dot {tld}",
                f"{user}(at){dom}(dot){tld}",
                f"{user} [at] {dom} [dot] {tld}",
                f"{user} AT {dom} DOT {tld}",
            ]
        )
        b.emit(
            Doc().add("you can email me: ", (spelled, "email", "spelled_email")), "evasion", "spec:spelled-out e-mail"
        )
    for _ in range(4):
        token = "glpat-" + b.r(AN, 20)
        b.emit(
            Doc().add(
                "the token is ", (token[:9] + " " + token[9:17] + " " + token[17:], "code_hosting", "split_token")
            ),
            "evasion",
            "spec:token split by spaces",
        )


# --- negatives ----------------------------------------------------------------------------------
def add_negatives(b: Builder) -> None:
    f = b.fake["en_US"]
    placeholders = [
        "GITHUB_TOKEN=ghp_" + "x" * 36,
        "token: ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        "STRIPE_SECRET_KEY=sk_live_" + "x" * 24,
        "stripe.api_key = 'sk_test_xxxxxxxxxxxxxxxxxxxxxxxx'",
        "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX",
        "AWS_ACCESS_KEY_ID=AKIA****************",
        "password=********",
        "password: '<your-password>'",
        'db_password = "YOUR_PASSWORD_HERE"',
        "Authorization: Bearer <token>",
        "Authorization: Bearer YOUR_ACCESS_TOKEN",
        "api_key: <YOUR_API_KEY>",
        "OPENAI_API_KEY=sk-...",
        "SLACK_BOT_TOKEN=xoxb-your-bot-token",
        "export DD_API_KEY=<DATADOG_API_KEY>",
        "AccountKey=<storage-account-key>",
        "TWILIO_AUTH_TOKEN=your_auth_token",
        "HEROKU_API_KEY=xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
        "PGPASSWORD=changeme-in-production psql",
        "secret: REPLACE_ME",
        '"password": ""',
        "mysql -u root -p orders",
        "password: null",
        "client_secret=<client-secret>",
        "sendgrid_api_key: SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "postgres://user:password@localhost:5432/mydb",
        "redis://:<password>@localhost:6379",
        "TOKEN=0000000000000000000000000000000000000000",
        "Your key looks like `sk_live_...` and must never be committed.",
        "ssn: XXX-XX-XXXX",
        "card: **** **** **** 4242",
        "NI number: QQ 12 34 56 C (example format)",
        "phone: (XXX) XXX-XXXX",
        "email: user@example.com",
    ]
    for text in placeholders:
        b.emit(text, "placeholder", "doc:placeholder styles used in vendor documentation")
    env_refs = [
        "password: ${PGPASSWORD}",
        "DB_PASSWORD=$DB_PASSWORD",
        'db_password = os.environ["DB_PASSWORD"]',
        'api_key = os.getenv("STRIPE_SECRET_KEY")',
        "const token = process.env.GITHUB_TOKEN;",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
        'secret = ENV.fetch("AWS_SECRET_ACCESS_KEY")',
        'String pass = System.getenv("DB_PASS");',
        "Password: !Ref DatabasePassword",
        'password: "{{ vault_db_password }}"',
        "api_key = ${env:DD_API_KEY}",
        "password_file: /run/secrets/db_password",
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password",
        "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}",
        'curl -H "DD-API-KEY: ${DD_API_KEY}" https://api.datadoghq.com/api/v1/validate',
        "set PASSWORD=%DB_PASSWORD%",
        "DATABASE_URL=postgres://app:${DB_PASSWORD}@db.internal/orders",
        "auth_token = settings.TWILIO_AUTH_TOKEN",
        "client_secret: $(CLIENT_SECRET)",
        "token = config['api']['token']",
        'password = keyring.get_password("smtp", user)',
        "AZURE_STORAGE_KEY=$(az storage account keys list -n acct --query [0].value -o tsv)",
        "secret_key = open('/etc/app/secret_key').read().strip()",
        "<password>${env.DEPLOY_PASSWORD}</password>",
        "'PASSWORD': env('DATABASE_PASSWORD'),",
        "stripe.api_key = Rails.application.credentials.stripe[:secret_key]",
        'token = "${GITLAB_TOKEN:?must be set}"',
        "password = %(db_password)s",
    ]
    for text in env_refs:
        b.emit(
            text,
            "env_reference",
            "doc:environment and secret-store references (shell, GitHub Actions, Kubernetes, Python)",
        )
    # Public material: public keys, certificates, fingerprints, publishable keys, digests.
    for _ in range(3):
        k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pub = k.public_key()
        b.emit(
            "-----BEGIN PUBLIC KEY-----\n"
            + pub.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            .decode()
            .split("\n", 1)[1],
            "public_material",
            "spec:PEM public key",
        )
        ssh = (
            ed25519.Ed25519PrivateKey.generate()
            .public_key()
            .public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
            .decode()
        )
        b.emit(f"Add this to authorized_keys: {ssh} deploy@build-01", "public_material", "spec:OpenSSH public key")
        b.emit(
            pub.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()
            + " ops@bastion",
            "public_material",
            "spec:OpenSSH public key",
        )
        digest = base64.b64encode(hashlib.sha256(f.binary(32)).digest()).decode().rstrip("=")
        b.emit(f"ED25519 key fingerprint is SHA256:{digest}.", "public_material", "spec:OpenSSH key fingerprint")
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import NameOID

    for cn in ["api.example.com", "intranet.example.org"]:
        k = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(k.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(dt.datetime(2026, 1, 1))
            .not_valid_after(dt.datetime(2027, 1, 1))
            .sign(k, hashes.SHA256())
        )
        b.emit(
            "server.crt:\n" + cert.public_bytes(serialization.Encoding.PEM).decode(),
            "public_material",
            "spec:X.509 certificate (PEM)",
        )
    for text in [
        "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n<redacted>\n-----END OPENSSH PRIVATE KEY-----",
        "Paste your key between -----BEGIN PRIVATE KEY----- and -----END PRIVATE KEY----- lines.",
        "STRIPE_PUBLISHABLE_KEY=pk_live_" + b.r(AN, 24),
        "Stripe.setPublishableKey('pk_test_" + b.r(AN, 24) + "');",
        'data-sitekey="6Lc' + b.r(URLSAFE, 37) + '"',
        '<script src="https://cdn.example.com/lib.js" integrity="sha384-'
        + base64.b64encode(f.binary(48)).decode()
        + '" crossorigin="anonymous"></script>',
        '"integrity": "sha512-' + base64.b64encode(f.binary(64)).decode() + '"',
        "docker pull nginx@sha256:" + f.sha256(),
        "commit " + f.sha1() + "\nAuthor: CI <ci@ci.internal>",
        "gpg: key "
        + b.r("0123456789ABCDEF", 16)
        + ": public key imported, fingerprint "
        + " ".join(b.r("0123456789ABCDEF", 4) for _ in range(10)),
        "request_id=" + f.uuid4() + " trace_id=" + b.r(HEX, 32) + " span_id=" + b.r(HEX, 16),
        "arn:aws:iam::" + b.r(DG, 12) + ":role/service-role/lambda-exec",
        "s3://" + f.domain_word() + "-artifacts/builds/" + f.sha1()[:12] + ".tar.gz",
        'etag: "' + f.md5() + '"',
        "sha256sum: " + f.sha256() + "  release.tar.gz",
        "aws_account_id = " + b.r(DG, 12),
        "Subnet: subnet-0" + b.r(HEX, 16) + ", vpc-0" + b.r(HEX, 16),
    ]:
        b.emit(text, "public_material", "spec:public keys, certificates, digests and identifiers")
    lookalikes = [
        f"PO-{b.r(DG, 4)}-{b.r(DG, 4)} approved by finance",
        f"Purchase order {b.r(DG, 3)}-{b.r(DG, 2)}-{b.r(DG, 4)} ships Monday",
        f"warehouse bin WH {b.r(DG, 4)}-{b.r(DG, 4)}",
        f"Order #{b.r(DG, 10)} was refunded",
        f"tracking 1Z{b.r(UP + DG, 16)}",
        f"EAN {f.ean13()}",
        f"ISBN {f.isbn13()}",
        f"EIN {f.ein()}",
        f"invoice INV-{b.r(DG, 4)}-{b.r(DG, 6)}",
        f"Part No. {b.r(DG, 3)}-{b.r(DG, 2)}-{b.r(DG, 3)}",
        f"build {b.r(DG, 5)}.{b.r(DG, 4)}",
        f"epoch {b.rng.randint(1600000000, 1800000000)}",
        f"timestamp {b.r(DG, 14)}",
        f"Deployed on {f.date_this_decade()} at {f.time()}",
        f"Release date: {f.date_this_year().strftime('%B %-d, %Y')}",
        f"card expires {b.rng.randint(1, 12):02d}/{b.rng.randint(27, 31)}",
        "version 4.12.3 (build 20260301)",
        f"coordinates {f.latitude()}, {f.longitude()}",
        f"price ${b.rng.randint(10, 9999)}.{b.r(DG, 2)}",
        "git clone git@github.com:django/django.git",
        "ssh ubuntu@ec2-3-90-12-7.compute-1.amazonaws.com",
        "scp deploy@10.0.4.12:/var/log/app.log .",
        "npm install @types/node@18.11.9",
        "pip install 'pkg @ git+https://github.com/org/pkg@v1.2.0'",
        f"pod checkout-api-{b.r(LO + DG, 10)}-{b.r(LO + DG, 5)} restarted",
        "ipconfig: 192.168.1.23, gateway 192.168.1.1, dns 10.0.0.2",
        "bind 127.0.0.1:8000 and ::1",
        "example.net resolves to 203.0.113.45 in the docs",
        f"uuid {f.uuid4()}",
        f"room 4{b.r(DG, 2)}, floor {b.rng.randint(2, 9)}",
        f"Case {b.r(DG, 4)}-{b.r(DG, 6)} assigned",
        f"SKU {b.r(UP, 3)}-{b.r(DG, 5)}",
        f"call duration {b.rng.randint(1, 59)}:{b.r(DG, 2)}:{b.r(DG, 2)}",
        f"ZIP 5 totals: {b.r(DG, 5)} rows",
        f"meeting ID {b.r(DG, 3)} {b.r(DG, 4)} {b.r(DG, 4)}",
        f"{f.sentence()} {f.sentence()}",
        f"{f.catch_phrase()} - {f.bs()}",
    ]
    for text in lookalikes:
        b.emit(text, "lookalike", "faker/spec:numbers and identifiers that are not personal data")
    for _ in range(30):
        loc = b.pick(list(b.fake))
        b.emit(b.fake[loc].paragraph(nb_sentences=3), "lookalike", f"faker:{loc}.paragraph")


def build_secrets(rng) -> dict:
    b = Builder(rng)
    add_tokens(b)
    add_provider_contexts(b)
    add_passwords(b)
    add_jwts_and_keys(b)
    add_wallets(b)
    add_personal(b)
    add_evasions(b)
    add_negatives(b)
    for n, sample in enumerate(b.samples):
        sample["id"] = f"d{n:04d}"
    return {
        "about": "Held-apart Memory Defense corpus (secrets, personal data); see benchmarks/corpora/build_holdout.py.",
        "samples": [{"id": s["id"], **{k: v for k, v in s.items() if k != "id"}} for s in b.samples],
    }
