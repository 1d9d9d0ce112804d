"""Credentials: provider token formats, keys named by their context, passwords, private keys.

Token layouts are the providers' documented prefixes and lengths (and the public
lists of them, such as the dora/garak and gitleaks rule sets); values whose format is
not distinctive (a 32-hex Datadog or Twilio key, a 40-character AWS secret, an Azure
storage key) are recognised by the key or variable they are assigned to.
"""

from __future__ import annotations

import json
import re

from beliefs.defense.base import Detector, near, token
from beliefs.defense.normalise import decoded_base64
from beliefs.defense.passwords import (
    PASSWORD_KEY_WORDS,
    PASSWORD_KEYS,
    STRUCTURED_PASSWORDS,
    labelled_password,
    unlike_a_word,
)
from beliefs.defense.validators import (
    basic_auth,
    entropy,
    is_placeholder,
    keyed_secret,
    password_value,
    pem_body,
    random_secret,
)

B64 = r"[A-Za-z0-9+/]"
_HASH_CONTEXT = re.compile(r"(?i)sha\d{1,3}[-:=]|integrity|digest|checksum|fingerprint|etag|commit|sha256sum|md5")

PROVIDER_TOKENS: list[Detector] = [
    token(
        "aws_access_key_id",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b",
        "AKIA",
        "ASIA",
        "ABIA",
        "ACCA",
        "A3T",
    ),
    # STS session tokens: base64 of a fixed header ("FwoGZXIvYXdz…", "IQoJb3JpZ2luX2Vj…").
    token(
        "aws_session_token",
        r"(?:FwoGZXIvYXdzE|IQoJb3JpZ2luX2Vj)[A-Za-z0-9+/]{80,}={0,2}",
        "FwoGZXIvYXdzE",
        "IQoJb3JpZ2luX2Vj",
    ),
    token(
        "amazon_mws_token", r"\bamzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "amzn.mws."
    ),
    token("gcp_api_key", r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])", "AIza"),
    token("gcp_oauth_token", r"\bya29\.[0-9A-Za-z_\-]{30,}", "ya29."),
    token("gcp_fcm_server_key", r"\bAAAA[A-Za-z0-9_\-]{7}:[A-Za-z0-9_\-]{140}", "AAAA"),
    token(
        "azure_client_secret",
        r"\b[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])",
        "Q~",
        anchored=False,
    ),
    token("github_token", r"\bgh[pousr]_[A-Za-z0-9]{36,251}\b", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    token("github_fine_grained_token", r"\bgithub_pat_[A-Za-z0-9_]{82}\b", "github_pat_"),
    token(
        "gitlab_token",
        r"\bgl(?:pat|dt|rt|ptt|cbt|soat)-[A-Za-z0-9_\-]{20,}",
        "glpat-",
        "gldt-",
        "glrt-",
        "glptt-",
        "glcbt-",
        "glsoat-",
    ),
    token("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", "npm_"),
    token("pypi_token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}", "pypi-"),
    token("nuget_api_key", r"\boy2[a-z0-9]{43}\b", "oy2"),
    token("huggingface_token", r"\bhf_[A-Za-z]{34}\b", "hf_"),
    token(
        "slack_token",
        r"\bxox[abposre]-(?:\d+-)+[A-Za-z0-9]{10,}\b|\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}",
        "xox",
        "xapp-",
    ),
    token(
        "slack_webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Za-z0-9_]{8,}/[A-Za-z0-9_/]{8,}",
        "https://hooks.slack.com/",
    ),
    token(
        "discord_webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{20,}",
        "https://discord",
        "https://ptb.discord",
        "https://canary.discord",
    ),
    token(
        "teams_webhook",
        r"https://[\w.-]*(?:outlook\.office|webhook\.office)\.com/webhook(?:b2)?/[^\s\"'<>]{20,}",
        "office.com/webhook",
        anchored=False,
    ),
    token(
        "zapier_webhook",
        r"https://(?:www\.)?hooks\.zapier\.com/hooks/catch/\d+/[A-Za-z0-9]+/?",
        "https://hooks.zapier",
        "https://www.hooks.zapier",
    ),
    token(
        "telegram_bot_token", r"(?:(?<=bot)|\b)\d{8,10}:AA[0-9A-Za-z_\-]{33}(?![0-9A-Za-z_\-])", ":aa", anchored=False
    ),
    Detector(
        "discord_bot_token",
        "credential",
        re.compile(r"\b[MN][A-Za-z\d]{23,25}\.[\w\-]{6}\.[\w\-]{27,38}\b"),
        precheck=re.compile(r"\.[\w\-]{6}\."),
        windowed=True,
    ),
    token(
        "stripe_secret_key",
        r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{24,247}\b",
        "sk_live_",
        "sk_test_",
        "rk_live_",
        "rk_test_",
    ),
    token("stripe_webhook_secret", r"\bwhsec_[A-Za-z0-9]{32,}\b", "whsec_"),
    token(
        "square_token",
        r"\b(?:EAAA[A-Za-z0-9_\-]{60}|sq0(?:atp|csp|idp)-[A-Za-z0-9_\-]{22,43})(?![A-Za-z0-9_\-])",
        "EAAA",
        "sq0",
    ),
    token(
        "braintree_access_token",
        r"\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}\b",
        "access_token$",
    ),
    token("shopify_token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", "shpat_", "shpca_", "shppa_", "shpss_"),
    token(
        "openai_api_key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}|\bsk-proj-[A-Za-z0-9_\-]{48,}",
        "sk-",
    ),
    token("anthropic_api_key", r"\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_\-]{80,}", "sk-ant-"),
    token("twilio_api_key", r"\bSK[0-9a-f]{32}\b", "SK"),
    token("twilio_account_sid", r"\bAC[0-9a-f]{32}\b", "AC"),
    token("sendgrid_api_key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b", "SG."),
    token("mailgun_api_key", r"\bkey-[0-9a-zA-Z]{32}\b", "key-"),
    token("mailchimp_api_key", r"\b[0-9a-f]{32}-us\d{1,2}\b", "-us", anchored=False),
    token("heroku_api_key", r"\bHRKU-[A-Za-z0-9_\-]{20,}", "HRKU-"),
    token(
        "new_relic_key",
        r"\bNR(?:AK|AA|II|IQ|RA|JS|SP)-[A-Za-z0-9_\-]{19,42}\b",
        "NRAK-",
        "NRAA-",
        "NRII-",
        "NRIQ-",
        "NRRA-",
        "NRJS-",
        "NRSP-",
    ),
    token("notion_token", r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{46})\b", "secret_", "ntn_"),
    token("dynatrace_token", r"\bdt0[a-zA-Z]\d{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b", "dt0"),
    token("stackhawk_api_key", r"\bhawk\.[0-9A-Za-z_\-]{20}\.[0-9A-Za-z_\-]{20}\b", "hawk."),
    token("riot_api_key", r"\bRGAPI-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\b", "RGAPI-"),
    token("facebook_access_token", r"\bEAA[B-Z][A-Za-z0-9]{80,}", "EAA"),
    token("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", "dop_v1_", "doo_v1_", "dor_v1_"),
    token("cloudinary_url", r"\bcloudinary://\d+:[A-Za-z0-9_\-.]+@[A-Za-z0-9_\-.]+", "cloudinary://"),
    token("jwt", r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}", "eyJ"),
]

_AWS_KEY_ID = re.compile(r"(?:AKIA|ASIA)[A-Z0-9]{16}")


def _aws_secret(value: str) -> bool:
    return not re.fullmatch(r"[0-9a-fA-F]+|[a-z]+|[A-Z]+", value) and random_secret(value + "Aa1")


_DD = re.compile(r"(?i)\b(?:dd|datadog)[_\-]?(?:api|app|application)[_\-]?key|\bdatadog\b")
_TWILIO = re.compile(r"(?i)twilio|auth[_\-]?token|authtoken")
_HEROKU = re.compile(r"(?i)heroku")
_KEY_WORDS = re.compile(r"(?i)\b(?:keys?|secrets?|credentials?|tokens?|passwords?)\b")
_CONNECTION_KEY = re.compile(
    r"(?i)(?:AccountKey|SharedAccessKey|SharedSecretValue|PrimaryKey|SecondaryKey)\s*=\s*"
    r"(?P<v>[A-Za-z0-9+/]{20,}={0,2})(?![A-Za-z0-9+/=])"
)


def _connection_spans(text: str):
    """The whole ``Name=value;…`` run around each key of a connection string (a placeholder key is none)."""
    cursor = 0
    for match in _CONNECTION_KEY.finditer(text):
        if match.start() < cursor or is_placeholder(match.group("v")):
            continue
        start = match.start()
        while start > 0 and not _RUN_EDGE.match(text, start - 1):
            start -= 1
        edge = _RUN_EDGE.search(text, match.end())
        end = edge.start() if edge else len(text)
        while end > match.end() and text[end - 1] in ".,)":
            end -= 1
        cursor = end
        yield start, end


_DEVOPS = re.compile(r"(?i)\bpat\b|devops|azure|personal access token|\bado\b|dev\.azure\.com")
_SAS = re.compile(r"(?i)(?<![A-Za-z])sig=[A-Za-z0-9%+/]{20,}")
_RUN_EDGE = re.compile(r"[\s\"'<>`]")


def _sas_spans(text: str):
    """The whole run (URL or query string) around each ``sig=`` of a shared access signature, when the run
    also names the signed version, resource or expiry (``sv=``, ``sr=``, ``se=``)."""
    cursor = 0
    for match in _SAS.finditer(text):
        if match.start() < cursor:
            continue
        start = match.start()
        while start > 0 and not _RUN_EDGE.match(text, start - 1):
            start -= 1
        edge = _RUN_EDGE.search(text, match.end())
        end = edge.start() if edge else len(text)
        while end > match.end() and text[end - 1] in ".,;)":
            end -= 1
        run = text[start:end].lower()
        if any(f"{key}=" in run for key in ("sv", "sr", "se", "skn", "sp")):
            cursor = end
            yield start, end


# Keys named as public or as something other than a credential ("publishable key", "site key", "search-only key"
# as Stripe, reCAPTCHA and Algolia publish them; "partition key", "next page token").
_PUBLIC_KEY_NAME = re.compile(
    r"(?i)(?:public|publishable|site|pub|idempotency|cache|partition|sort|row|foreign|object|s3|bucket|file|lookup|"
    r"dedupe?|routing|shard|hash|signing|next[_\-]?page|page|continuation|cursor|sync|etag|search[ _\-]only)"
    r"[ _\-]?(?:key|token)|keyid|key_id|keyname|key_name"
)
_AZURE = re.compile(r"(?i)accountkey|account[_\-]?key|storage[_\-]?key|azure|\"key[12]\"|keyname")


CONTEXT_KEYS: list[Detector] = [
    Detector(
        "aws_secret_access_key",
        "credential",
        re.compile(
            rf"(?i)(?:aws|secret[_\s\-]?(?:access[_\s\-]?)?key)[^\n]{{0,80}}?(?<!{B64})(?P<v>{B64}{{40}})(?![A-Za-z0-9+/=])"
        ),
        validate=_aws_secret,
        group="v",
        keywords=("aws", "secret"),
        windowed=True,
    ),
    # The 40-character secret beside its access key id, with no label ("AKIA…,wJalr…", "AKIA… and wJalr…").
    Detector(
        "aws_secret_access_key",
        "credential",
        re.compile(rf"(?<![A-Za-z0-9+/])(?P<v>{B64}{{40}})(?![A-Za-z0-9+/=])"),
        validate=_aws_secret,
        group="v",
        keywords=("akia", "asia"),
        precheck=re.compile(rf"{B64}{{40}}"),
        min_run=40,
        check=lambda text, start, end: near(text, start, _AWS_KEY_ID, 160, 160 + end - start),
        windowed=True,
    ),
    Detector(
        "azure_storage_key",
        "credential",
        re.compile(rf"(?<![A-Za-z0-9+/])(?P<v>{B64}{{86}}==)(?![A-Za-z0-9+/=])"),
        group="v",
        keywords=("==",),
        check=lambda text, start, end: near(text, start, _AZURE, 120) and not near(text, start, _HASH_CONTEXT, 20),
        windowed=True,
    ),
    # The same 64-byte key shape named only by the words around it ("account opsdiag and key 8fQ…==").
    Detector(
        "generic_api_key",
        "credential",
        re.compile(rf"(?<![A-Za-z0-9+/])(?P<v>{B64}{{86}}==)(?![A-Za-z0-9+/=])"),
        validate=lambda v: random_secret(v[:40]),
        group="v",
        keywords=("==",),
        check=lambda text, start, end: near(text, start, _KEY_WORDS, 60) and not near(text, start, _HASH_CONTEXT, 30),
        windowed=True,
    ),
    Detector(
        "azure_sas_token",
        "credential",
        re.compile(r"(?i)\bsig=(?P<v>[A-Za-z0-9%+/]{40,}(?:%3D|=)*)"),
        group="v",
        keywords=("sig=",),
        at_keywords=True,
    ),
    # A shared access signature is a bearer credential as a whole: the URL or query string that carries ``sig=``.
    Detector(
        "azure_sas_token",
        "credential",
        re.compile(r"(?i)sig=[A-Za-z0-9%+/]{20,}"),
        keywords=("sig=",),
        finder=lambda text: _sas_spans(text),
    ),
    # Connection strings (storage, Cosmos DB, Service Bus, Event Hubs, IoT Hub): the whole string is the credential.
    Detector(
        "azure_storage_key",
        "credential",
        _CONNECTION_KEY,
        keywords=("accountkey", "sharedaccesskey", "sharedsecretvalue", "primarykey", "secondarykey"),
        finder=lambda text: _connection_spans(text),
    ),
    # A 64-byte key in base64 (88 characters ending "==") is a secret wherever it stands, unless it is a digest.
    Detector(
        "azure_storage_key",
        "credential",
        re.compile(rf"(?<![A-Za-z0-9+/])(?P<v>{B64}{{86}}==)(?![A-Za-z0-9+/=])"),
        validate=lambda v: random_secret(v[:44]),
        group="v",
        keywords=("==",),
        check=lambda text, start, end: not near(text, start, _HASH_CONTEXT, 40),
        windowed=True,
    ),
    token("azure_devops_token", r"\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b", "AZDO", anchored=False),
    # Azure Functions keys in the URL that calls the function (``…azurewebsites.net/api/x?code=…``).
    Detector(
        "url_token",
        "credential",
        re.compile(r"(?i)[?&]code=(?P<v>[A-Za-z0-9_\-]{30,}={0,2})"),
        group="v",
        keywords=("code=",),
        check=lambda text, start, end: "azurewebsites" in text[max(0, start - 200) : start].lower(),
    ),
    # Azure DevOps personal access tokens (52 base32 characters) named as such nearby.
    Detector(
        "azure_devops_token",
        "credential",
        re.compile(r"(?<![A-Za-z0-9])(?P<v>[a-z2-7]{52})(?![A-Za-z0-9])"),
        validate=lambda v: len(re.findall(r"\d", v)) >= 4 and entropy(v) >= 4.0,
        group="v",
        keywords=("pat", "devops", "azure", "personal access", "ado"),
        precheck=re.compile(r"[a-z2-7]{52}"),
        min_run=52,
        check=lambda text, start, end: near(text, start, _DEVOPS, 100),
        windowed=True,
    ),
    Detector(
        "datadog_api_key",
        "credential",
        re.compile(r"(?<![0-9a-fA-F])(?P<v>[a-f0-9]{32}|[a-f0-9]{40})(?![0-9a-fA-F])"),
        group="v",
        keywords=("dd", "datadog"),
        precheck=re.compile(r"[a-f0-9]{32}"),
        min_run=32,
        check=lambda text, start, end: near(text, start, _DD, 60),
        windowed=True,
    ),
    Detector(
        "twilio_auth_token",
        "credential",
        re.compile(r"(?<![0-9a-fA-F])(?P<v>[a-f0-9]{32})(?![0-9a-fA-F])"),
        group="v",
        keywords=("twilio", "auth", "ac"),
        precheck=re.compile(r"[a-f0-9]{32}"),
        min_run=32,
        check=lambda text, start, end: (
            near(text, start, _TWILIO, 60) or bool(re.search(r"AC[0-9a-f]{32}:$", text[max(0, start - 35) : start]))
        ),
        windowed=True,
    ),
    Detector(
        "heroku_api_key",
        "credential",
        re.compile(r"(?P<v>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)"),
        group="v",
        keywords=("heroku",),
        check=lambda text, start, end: near(text, start, _HEROKU, 60),
    ),
    Detector(
        "gcp_service_account_key",
        "credential",
        re.compile(r"\"private_key_id\"\s*:\s*\"(?P<v>[0-9a-f]{40})\""),
        group="v",
        keywords=("private_key_id",),
    ),
    Detector(
        "url_token",
        "credential",
        re.compile(
            r"(?i)[?&#](?:access_token|api[_\-]?key|apikey|auth[_\-]?token|token|key|secret|client_secret|password|"
            r"passwd|signature|auth)=(?P<v>[^&\s#\"'<>]{16,})"
        ),
        validate=keyed_secret,
        group="v",
        keywords=("token=", "key=", "secret=", "password=", "passwd=", "signature=", "auth="),
    ),
    Detector(
        "generic_api_key",
        "credential",
        re.compile(
            r"(?i)(?:api[_\-.]?key|apikey|app[_\-.]?key|access[_\-.]?token|auth[_\-.]?token|bearer|token|secret[_\-.]?key|"
            r"client[_\-.]?secret|consumer[_\-.]?secret|app[_\-.]?secret|api[_\-.]?secret|private[_\-.]?token|"
            r"secret)(?:\"|')?\s*(?:[:=]|=>|\s)\s*[\"'`]?(?P<v>[A-Za-z0-9_\-.=+/~]{16,200})"
        ),
        validate=keyed_secret,
        group="v",
        keywords=("api", "app", "access", "auth", "bearer", "token", "secret", "client", "consumer", "private"),
        anchored=True,
        check=lambda text, start, end: not _PUBLIC_KEY_NAME.search(text, max(0, start - 40), start),
    ),
    # A key or token named in prose, its value after the word or "is" ("use the key 7f3b… when calling the API").
    Detector(
        "generic_api_key",
        "credential",
        re.compile(
            r"(?i)\b(?:key|token|secret)s?\b(?:\s+(?:is|was|=))?\s*[:=]?\s*[\"'`]?"
            r"(?P<v>[A-Za-z0-9_\-+/.]{20,128}={0,2})(?![\w+/=\-])"
        ),
        validate=lambda v: (
            keyed_secret(v)
            and bool(re.search(r"\d", v))
            and bool(re.search(r"[A-Za-z]", v))
            and not re.search(r"\.[a-z]{2,}$|^\.|/[\w.\-]+/", v)
        ),
        group="v",
        keywords=("key", "token", "secret"),
        anchored=True,
        check=lambda text, start, end: (
            not near(text, start, _HASH_CONTEXT, 40) and not _PUBLIC_KEY_NAME.search(text, max(0, start - 40), start)
        ),
    ),
    # A quoted value given to a key whose name ends in key, secret or token (``"primaryKey": "…"``,
    # ``client_secret: '…'``): the whole quoted value, whatever characters it holds.
    Detector(
        "generic_api_key",
        "credential",
        re.compile(
            r"(?i)(?:[a-z0-9]_?|\b)(?:key|secret|token)[\"']?[ \t]*(?:[:=]|=>)[ \t]*"
            r"(?P<q>[\"'])(?P<v>[^\"'\s]{16,200})(?P=q)"
        ),
        validate=lambda v: keyed_secret(v) and random_secret(v) and not re.search(r"[:@\s]|^[a-z]+_", v),
        group="v",
        keywords=("key", "secret", "token"),
        at_keywords=True,
        lead=2,  # (the letter or digit and the underscore before the word)
        check=lambda text, start, end: (
            not near(text, start, _HASH_CONTEXT, 40) and not _PUBLIC_KEY_NAME.search(text, max(0, start - 40), start)
        ),
    ),
    Detector(
        "high_entropy_secret",
        "credential",
        re.compile(r"(?<![\w/+=\-])[A-Za-z0-9_\-]{32,128}(?![\w/+=\-])"),
        lambda v: random_secret(v) and not _token_header(v),
        min_run=32,
        check=lambda text, start, end: (
            not near(text, start, _HASH_CONTEXT, 24) and not _PUBLIC_KEY_NAME.search(text, max(0, start - 40), start)
        ),
    ),
]


# The keys a JOSE header (a JWT's first part) may hold: algorithm, type and key references, never a secret.
_HEADER_KEYS = frozenset(
    {"alg", "typ", "cty", "kid", "crit", "enc", "zip", "jku", "jwk", "x5u", "x5c", "x5t", "x5t#S256"}
)


def _token_header(value: str) -> bool:
    """Base64 of a token's header alone (``{"alg":"HS256","typ":"JWT"}``): how the token is signed, not a secret."""
    decoded = decoded_base64(value)
    if decoded is None or not decoded.lstrip().startswith("{"):
        return False
    try:
        header = json.loads(decoded)
    except ValueError:
        return False
    return isinstance(header, dict) and "alg" in header and set(header) <= _HEADER_KEYS


_PASSWORD_KEY = r"(?:password|passwd|passphrase|pwd|pass|secret)"
_NOT_USER = re.compile(r"(?i)^(?:mailto|tel|sip|sips|xmpp|urn|news|data|javascript|about|cid|mid)$")


_REFERENCE_RUN = re.compile(r"(?i)^(?:arn:|[a-z][a-z0-9+.\-]{1,20}://)")


def _in_reference(text: str, start: int) -> bool:
    """The key stands inside an ARN or a URL path (``…:secret:prod/db``), not before a value of its own."""
    if not start or text[start - 1].isspace():
        return False
    runs = text[max(0, start - 120) : start].rsplit(None, 1)
    return bool(runs) and bool(_REFERENCE_RUN.match(runs[-1]))


def _prose_password(value: str) -> bool:
    return password_value(value) and unlike_a_word(value)


PASSWORDS: list[Detector] = [
    Detector(
        "private_key",
        "private_key",
        re.compile(
            r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----"
            r"[\s\S]*?(?:-----END (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----(?:\\n)?|$)"
        ),
        validate=pem_body,
        keywords=("private key",),
    ),
    Detector(
        "password_in_url",
        "credential",
        re.compile(r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@\"']{0,64}:(?P<v>[^\s@/\"']{3,128})@[\w.\-]+", re.I),
        validate=lambda v: not re.fullmatch(r"\d{1,5}", v) and not is_placeholder(v) and password_value(v + "~~"),
        group="v",
        keywords=("://",),
        at_keywords=True,
        lead=21,  # (the scheme before "://")
        precheck=re.compile(r"://[^\s:/@\"']{0,64}:[^\s@/\"']{3,128}@"),  # (a user and a password before a host)
    ),
    Detector(
        "basic_auth",
        "credential",
        re.compile(r"(?i)\bbasic\s+(?P<v>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])"),
        validate=basic_auth,
        group="v",
        keywords=("basic",),
        at_keywords=True,
    ),
    Detector(
        "password_assignment",
        "credential",
        re.compile(
            r"(?i)(?:(?<![A-Za-z0-9])|(?-i:(?<=[A-Z0-9])(?=[A-Z])|(?<=[a-z0-9])(?=[A-Z])))"
            rf"{_PASSWORD_KEY}(?:\"|')?(?:[ \t]*\([^()\n]{{1,40}}\))?(?:[ \t]*(?:[:=]|=>|:=)[ \t]*|[ \t]+)"
            r"(?:(?P<q>[\"'`])(?P<qv>(?:\\.|(?!(?P=q))[^\n\\]){4,128})(?P=q)"
            r"|(?P<v>(?![(\[{<])[^\s\"',;`)\]}]{4,128}(?<![:=])(?![\w:])))"
        ),
        validate=password_value,
        group=("qv", "v"),
        keywords=("password", "passwd", "passphrase", "pwd", "pass", "secret"),
        anchored=True,
        check=lambda text, start, end: not _in_reference(text, start),
    ),
    # A password given to a password key after ``:`` or ``=`` (JSON, YAML, ENV, INI): a single lowercase word is
    # one too ("sunflower"), when it is the whole value (quoted, or ending the line or the field).
    Detector(
        "password_assignment",
        "credential",
        re.compile(
            r"(?i)(?:(?<![A-Za-z0-9])|(?-i:(?<=[a-z0-9])(?=[A-Z])))"
            rf"{PASSWORD_KEYS}(?:\"|')?(?:[ \t]*\([^()\n]{{1,40}}\))?"
            r"(?:[ \t]*(?:[:=]|=>|:=|->|\u2192|\u2014|\u2013)[ \t]*|[ \t]+-[ \t]+)"
            r"(?:(?P<q>[\"'`])(?P<qv>(?:\\.|(?!(?P=q))[^\n\\]){4,128})(?P=q)"
            r"|(?P<v>[^\s\"',;`)\]}]{4,128}?)[ \t]*(?=[,;}\]\r\n|]|$))"
        ),
        validate=labelled_password,
        group=("qv", "v"),
        keywords=PASSWORD_KEY_WORDS,
        anchored=True,
    ),
    Detector(
        "password_in_prose",
        "credential",
        re.compile(
            r"(?i)\b(?:password|passphrase|passcode|pin|wifi key)\b[^.\n:/@]{0,40}?\b(?:is|was)\s*:?\s*[\"'`]?"
            r"(?P<v>[^\s\"'`]{6,64}?)[\"'`]?(?=[\s.,;!?)]|$)"
        ),
        validate=_prose_password,
        group="v",
        keywords=("password", "passphrase", "passcode", "pin", "wifi key"),
        anchored=True,
    ),
    # A password told in a sentence, in several languages: "the pass is Tango77#", "my password is now
    # Falcon#2291.", "Password for the wifi: Kitchen-Sink-42", "mot de passe : Soleil2025!"; the value runs to
    # the next space (sentence punctuation after it is left out).
    Detector(
        "password_in_prose",
        "credential",
        re.compile(
            rf"(?i)(?<![\w-]){PASSWORD_KEYS}\b(?:[^\n.:=!?;@/]{{0,40}}?\b(?:is|was|ist|war|lautet|heißt|luidt|est|es|era|è|é|är|er|"
            r"to|now|be)\b:?|[^\n.:=;@/]{0,40}?[:=])\s*(?:now\s+|set\s+to\s+|changed\s+to\s+)?"
            r"(?:(?P<q>[\"'`])(?P<qv>[^\"'`\n]{4,64})(?P=q)|(?P<v>[^\s\"'`]{4,64}?)(?=[.,;:)]*(?:\s|$)))"
        ),
        validate=_prose_password,
        group=("qv", "v"),
        keywords=PASSWORD_KEY_WORDS,
        anchored=True,
    ),
    # The value first, then what it is ("use Hunter22! as the password", "Blue#Harbor2024 is her new password").
    Detector(
        "password_in_prose",
        "credential",
        re.compile(
            r"(?i)(?<![^\s\"'`(])(?P<v>[^\s\"'`]{6,64}?)[\"'`]?\s{1,3}(?:is|as|was|=)\s{1,3}(?:(?:the|my|our|your|his|her|their)\s{1,3})?"
            r"(?:(?:new|temporary|temp|current|wifi|admin|root|login|account)\s{1,3}){0,2}"
            r"(?:password|passphrase|passcode|pw|pwd)\b"
        ),
        validate=lambda v: password_value(v) and bool(re.search(r"\d", v)) and bool(re.search(r"[A-Za-z]", v)),
        group="v",
        keywords=("password", "passphrase", "passcode", "pw"),
        precheck=re.compile(r"(?i)\s(?:is|as|was|=)\s+(?:\w+\s+){0,3}?(?:password|passphrase|passcode|pw|pwd)\b"),
        windowed=True,
    ),
    # A PIN or passcode given after its label ("PIN: 4821", ``"pin": "804271"``, "the passcode is 739105"), or
    # straight after "PIN" in capitals or a card's, a phone's or a person's pin ("PIN 3662", "ATM pin 4821"; lower-case
    # "pin 13" alone is a connector's).
    Detector(
        "password_in_prose",
        "credential",
        re.compile(
            r"(?i)\b(?:pin(?:[ _\-]?code)?|passcode|pass code|access code|door code|alarm code)\b[\"']?[ \t]*"
            r"(?:[:=]|is|was|:\s*is)[ \t]*[\"']?(?P<v>\d{4,8})(?![\w\-/.:])"
            r"|\b(?:(?-i:PIN)|(?:(?<=my )|(?<=your )|(?<=atm )|(?<=card )|(?<=debit )|(?<=bank )|(?<=sim )"
            r"|(?<=phone ))pin)"
            r"(?:[ _\-]?code)?[ \t]+(?P<w>\d{4,8})(?![\w\-/.:])(?!\s*(?:-\s*)?digits?\b)"
        ),
        validate=lambda v: len(set(v)) >= 2 and v not in "0123456789" and v not in "9876543210",
        group=("v", "w"),
        keywords=("pin", "passcode", "pass code", "access code", "door code", "alarm code"),
        at_keywords=True,
    ),
    # ``user:password@host`` without a scheme (ssh, scp, a DSN fragment).
    Detector(
        "password_in_url",
        "credential",
        re.compile(
            r"(?<![\w.:/@\-])(?P<u>[A-Za-z][\w.\-]{0,31}):(?P<v>[^\s:@/\"'<>]{4,64})@"
            r"(?:\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63}){1,6}|localhost)\b"
        ),
        validate=lambda v: not is_placeholder(v) and password_value(v + "~~") and bool(re.search(r"[^a-z]", v)),
        group="v",
        keywords=("@",),
        precheck=re.compile(r":[^\s:@/\"'<>]{4,64}@"),
        check=lambda text, start, end: not _NOT_USER.match(text[max(0, start - 40) : start].rsplit(None, 1)[-1]),
        windowed=True,
    ),
    *(
        Detector(
            "password_in_command",
            "credential",
            re.compile(regex, re.M | re.I),
            validate=password_value,
            group="v",
            keywords=keywords,
        )
        for regex, keywords in (
            (r"\s-p(?P<q>['\"]?)(?P<v>[^\s'\"]{4,128})(?P=q)(?=\s|$)", (" -p",)),
            (r"\bsshpass\s+-p\s*(?P<q>['\"]?)(?P<v>[^\s'\"]{4,128})(?P=q)", ("sshpass",)),
            (r"type=[\"']password[\"'][^>]{0,80}?value=[\"'](?P<v>[^\"'\n]{4,128})[\"']", ("type=",)),
            (r"--password[= ](?P<q>['\"]?)(?P<v>[^\s'\"]{4,128})", ("--password",)),
            (r"\bcurl\b[^\n]*?\s-u\s+[^\s:]+:(?P<v>[^\s]{4,128})", ("curl",)),
            (r"\b(?:IDENTIFIED BY|PASSWORD)\s+'(?P<v>[^']{4,128})'", ("identified by", "password '")),
            (r"\becho\s+'(?P<v>[^']{4,128})'\s*\|\s*docker login", ("docker login",)),
            (r"^[\w.\-*]+:(?:\d+|\*):[\w*\-]+:[\w*\-.]+:(?P<v>[^\s:]{4,128})$", (":5432:", ":3306:", ":*:")),
            (r"\bcredentials?\s*[:=]?\s*\S+\s+/\s+(?P<v>\S{6,64})", ("credential",)),
            (r"\bnet\s+use\b[^\n]*?\s/user:\S+\s+(?P<v>[^\s/]\S{3,127})", ("net use",)),
        )
    ),
    *STRUCTURED_PASSWORDS,
]
