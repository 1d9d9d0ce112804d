"""People's credentials under attack: sign-in lockout, password rules, per-person and per-address rate limits,
session expiry, and HTTPS-only behaviour behind the TLS proxy.

Each test sends the request an attacker would (a credential-stuffing loop, a guessed bearer key, a spoofed
``X-Forwarded-*`` header) and fails if the protection is taken away.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from banks.permissions import Role
from banks.sessions import SEEN_AT, SIGNED_IN_AT
from tests.factories import BankFactory, TenantFactory
from tests.helpers.builders import make_user

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery staple"
WORDLIST = ["123456", "password", "qwerty", "letmein", "dragon", "monkey", "iloveyou"]
BROWSER = {"HTTP_ACCEPT": "text/html,application/xhtml+xml"}


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def person(db):
    tenant = TenantFactory()
    bank = BankFactory(tenant=tenant, slug="ops")
    user = make_user(f"demo-admin-{tenant.pk}", tenant=tenant, bank=bank, role=Role.TENANT_ADMIN)
    user.set_password(PASSWORD)
    user.save()
    return user


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_a_credential_stuffing_loop_is_locked_out_and_the_right_password_then_fails_too(person):
    client = Client()
    answers = [
        client.post("/accounts/login/", {"username": person.username, "password": guess}, **BROWSER).status_code
        for guess in WORDLIST
    ]
    assert answers[:4] == [200] * 4  # the form again, "enter a correct username and password"
    assert answers[4:] == [429, 429, 429]  # the fifth failure (MEMORYHUB_LOGIN_FAILURE_LIMIT) locks
    hit = client.post("/accounts/login/", {"username": person.username, "password": PASSWORD}, **BROWSER)
    assert hit.status_code == 429 and not signed_in(client)  # the right password is refused while locked
    page = hit.content.decode()
    assert "Sign-in paused" in page and "15 minutes" in page
    assert hit["Retry-After"] == "900" and hit["Cache-Control"].startswith("no-store")
    # The address is locked for every user name, and the user name from every address.
    other = get_user_model().objects.create_user("someone-else", password=PASSWORD)
    assert client.post("/accounts/login/", {"username": other.username, "password": PASSWORD}).status_code == 429
    elsewhere = Client(REMOTE_ADDR="198.51.100.7")
    assert elsewhere.post("/accounts/login/", {"username": person.username, "password": PASSWORD}).status_code == 429
    assert not signed_in(elsewhere)


def test_a_non_browser_gets_the_json_lockout_and_the_admin_sign_in_is_locked_as_well(person):
    person.is_staff = True
    person.save()
    client = Client(REMOTE_ADDR="192.0.2.10")
    for guess in WORDLIST[:4]:
        assert client.post("/admin/login/", {"username": person.username, "password": guess}).status_code == 200
    assert client.post("/admin/login/", {"username": person.username, "password": "x"}).status_code == 429
    locked = client.post("/admin/login/?next=/admin/", {"username": person.username, "password": PASSWORD})
    assert locked.status_code == 429 and locked["Content-Type"] == "application/json"
    assert locked.json()["code"] == "login_locked" and int(locked["Retry-After"]) > 0
    assert not signed_in(client)
    # Both sign-in forms count into the same lockout.
    assert client.post("/accounts/login/", {"username": person.username, "password": PASSWORD}).status_code == 429


def test_failures_spread_over_addresses_still_lock_the_user_name(person):
    for n, guess in enumerate(WORDLIST[:5]):  # a botnet: one guess per address, through the trusted proxy
        client = Client(HTTP_X_FORWARDED_FOR=f"203.0.113.{n + 1}")
        answer = client.post("/accounts/login/", {"username": person.username, "password": guess})
        assert answer.status_code == (429 if n == 4 else 200)
    fresh = Client(HTTP_X_FORWARDED_FOR="203.0.113.99")
    assert fresh.post("/accounts/login/", {"username": person.username, "password": PASSWORD}).status_code == 429
    attempts = AccessAttempt.objects.filter(username=person.username)
    assert sorted(attempts.values_list("ip_address", flat=True)) == [f"203.0.113.{n}" for n in (1, 2, 3, 4, 5, 99)]
    # Another person signs in from one of those addresses: each address failed once only.
    other = get_user_model().objects.create_user("bystander", password=PASSWORD)
    bystander = Client(HTTP_X_FORWARDED_FOR="203.0.113.1")
    assert bystander.post("/accounts/login/", {"username": other.username, "password": PASSWORD}).status_code == 302


def test_a_forwarded_for_header_from_an_untrusted_peer_does_not_escape_the_address_lockout(person):
    for n in range(5):  # a direct client rotating a forged X-Forwarded-For, and a different user name each time
        client = Client(REMOTE_ADDR="198.51.100.20", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
        client.post("/accounts/login/", {"username": f"guess-{n}", "password": "nope"})
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.20"}
    client = Client(REMOTE_ADDR="198.51.100.20", HTTP_X_FORWARDED_FOR="10.0.0.77")
    assert client.post("/accounts/login/", {"username": person.username, "password": PASSWORD}).status_code == 429


def test_the_lockout_lifts_after_the_cool_off_and_a_success_resets_the_count(person):
    client = Client()
    for guess in WORDLIST[:5]:
        client.post("/accounts/login/", {"username": person.username, "password": guess})
    assert client.post("/accounts/login/", {"username": person.username, "password": PASSWORD}).status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert client.post("/accounts/login/", {"username": person.username, "password": PASSWORD}).status_code == 302
    assert signed_in(client) and not AccessAttempt.objects.filter(username=person.username).exists()


def test_every_password_a_person_sets_passes_the_validators(person):
    client = Client()
    client.force_login(person)
    for weak, why in [
        ("a", "too short"),
        ("493027561849", "entirely numeric"),
        ("password1234", "too common"),
        (f"{person.username}!", "too similar"),
    ]:
        response = client.post(
            "/accounts/password/", {"old_password": PASSWORD, "new_password1": weak, "new_password2": weak}
        )
        assert response.status_code == 200 and why in response.content.decode(), weak
    person.refresh_from_db()
    assert person.check_password(PASSWORD)
    strong = "violet-harbour-trellis-42"
    done = client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": strong,
                                              "new_password2": strong})  # fmt: skip
    assert done.status_code == 302
    person.refresh_from_db()
    assert person.check_password(strong)


def test_a_signed_in_person_is_rate_limited_across_pages_and_session_api_calls(person, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "USER_RATE_LIMIT_PER_MINUTE": 4}
    tenant_slug = person.memberships.get().tenant.slug
    client = Client()
    client.force_login(person)
    for _ in range(2):
        assert client.get(f"/t/{tenant_slug}/").status_code == 200
    api = APIClient()
    api.force_login(person)  # the same person, another browser: one window for the person
    assert api.get("/api/v1/banks/ops/").status_code == 200
    assert api.post("/api/v1/banks/ops/recall", {"query": "x", "budget_tokens": 100}, format="json").status_code == 200
    refused_api = api.post("/api/v1/banks/ops/recall", {"query": "x", "budget_tokens": 100}, format="json")
    assert refused_api.status_code == 429 and refused_api.json()["code"] == "rate_limited"
    assert int(refused_api["Retry-After"]) > 0 and refused_api["X-RateLimit-Scope"] == "user"
    refused_page = client.get(f"/t/{tenant_slug}/banks/ops/recall/?q=disk")
    assert refused_page.status_code == 429 and "Too many requests" in refused_page.content.decode()
    assert int(refused_page["Retry-After"]) > 0
    someone_else = Client()
    someone_else.force_login(get_user_model().objects.create_user("other-person"))
    assert someone_else.get("/").status_code != 429  # not counted against the first person


def test_guessing_bearer_keys_is_rate_limited_per_address(settings, caller):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "AUTH_FAILURES_PER_MINUTE": 3}
    guesser = APIClient(REMOTE_ADDR="198.51.100.30")
    for n in range(3):
        guesser.credentials(HTTP_AUTHORIZATION=f"Bearer mh_deadbee{n}_guess")
        answer = guesser.get(caller.url(""))
        assert answer.status_code == 401 and answer.json()["code"] == "authentication_failed"
    guesser.credentials(HTTP_AUTHORIZATION="Bearer mh_deadbeef_guess")
    refused = guesser.get(caller.url(""))
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited" and int(refused["Retry-After"]) > 0
    guesser.credentials(HTTP_AUTHORIZATION=f"Bearer {caller.raw_key}")  # not even a right key from there, for now
    assert guesser.get(caller.url("")).status_code == 429
    assert caller.client.get(caller.url("")).status_code == 200  # other addresses are not affected


def test_an_idle_or_too_old_session_ends(person):
    tenant_slug = person.memberships.get().tenant.slug
    client = Client()
    client.force_login(person)
    assert client.get(f"/t/{tenant_slug}/").status_code == 200
    session = client.session
    session[SEEN_AT] = int(time.time()) - 2 * 3600 - 5  # idle for just over two hours
    session.save()
    answer = client.get(f"/t/{tenant_slug}/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    assert not signed_in(client)

    client.force_login(person)
    session = client.session
    session[SIGNED_IN_AT] = int(time.time()) - 12 * 3600 - 5  # busy, but signed in over twelve hours ago
    session.save()
    api = client.get("/api/v1/banks/ops/")
    assert api.status_code in {401, 403} and api.json()["code"] == "not_authenticated"
    assert not signed_in(client)


def _tls_settings_probe(script: str, **env) -> str:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "memoryhub.settings_test", **env}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=environment, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


TLS_PROBE = """
import django
django.setup()
from django.test import Client
direct = Client(REMOTE_ADDR="198.51.100.40").get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
print("direct", direct.status_code, direct.get("Location"))
proxied = Client(REMOTE_ADDR="127.0.0.1").get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
print("hsts", proxied.status_code, proxied.get("Strict-Transport-Security"))
print("cookie-secure", bool(proxied.cookies["csrftoken"]["secure"]))
print("health", Client(REMOTE_ADDR="172.18.0.1").get("/healthz").status_code != 301)
"""


def test_behind_the_tls_proxy_plain_http_is_redirected_hsts_is_sent_and_cookies_are_secure():
    out = _tls_settings_probe(TLS_PROBE, MEMORYHUB_TLS_PROXY="1")
    # A direct client's forged X-Forwarded-Proto is dropped: it is plain HTTP, and redirected to HTTPS.
    assert "direct 301 https://testserver/accounts/login/" in out
    # Through the proxy (loopback): HSTS for a year, without subdomains unless asked; cookies HTTPS-only.
    assert "hsts 200 max-age=31536000\n" in out
    assert "cookie-secure True" in out and "health True" in out
    off = _tls_settings_probe(TLS_PROBE, MEMORYHUB_TLS_PROXY="0")
    assert "direct 200 None" in off and "hsts 200 None" in off
