"""An admin's first minutes in the browser: a key shown once, an erasure and its receipt, every admin page, a 403."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from audit.services import audit_record
from banks.models import ApiKey
from banks.permissions import Role
from beliefs.models import ErasureRequest
from tests.helpers.builders import PASSWORD
from tests.web.browser.conftest import shoot, sign_in


def test_an_admin_issues_a_key_sees_it_once_files_an_erasure_and_reads_its_receipt(page, site, watch):
    bank = f"/t/{site.tenant.slug}/banks/{site.bank.slug}/settings/"
    tenant = f"/t/{site.tenant.slug}/"
    for n in range(3):
        audit_record(tenant=site.tenant, bank=site.bank, action="episodes.retained", target=f"retain_batch:{n}",
                     actor="api-key:demo", details={"created": 10 + n})  # fmt: skip
    sign_in(page, site.users[Role.TENANT_ADMIN].username, PASSWORD)

    # A key: created, shown once in the answer, gone once the page is left, listed by prefix.
    page.goto(bank + "api-keys/")
    page.get_by_label("Name").fill("triage-agent")
    page.get_by_label("Expires").select_option("90")
    page.get_by_role("button", name="Create key").click()
    secret = page.locator("#new-key")
    expect(secret).to_have_text(re.compile(r"^mh_[0-9a-f]{8}_\S{40,}$"))
    raw = secret.inner_text()
    key = ApiKey.objects.get(tenant=site.tenant, name="triage-agent")
    assert raw.startswith(f"mh_{key.prefix}_") and key.bank_id == site.bank.pk
    shoot(page, "30-admin-api-key-created")
    page.goto(bank + "api-keys/")
    expect(page.locator("#new-key")).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text(raw)
    expect(page.get_by_role("cell", name=key.prefix)).to_be_visible()
    shoot(page, "31-admin-api-keys")

    # An erasure: filed, run by the erasure worker (inline here), its receipt read.
    page.goto(bank + "erasure/")
    page.get_by_label("Subject", exact=True).fill("host:db-01")
    page.get_by_label(re.compile("I understand this cannot be undone")).check()
    page.get_by_role("button", name="Erase this subject").click()
    expect(page.get_by_role("heading", name=re.compile(r"Erasure request \d+"))).to_be_visible()
    expect(page.get_by_role("heading", name="Receipt")).to_be_visible()
    erasure = ErasureRequest.objects.get(bank=site.bank)
    deleted = erasure.receipt["removed"]["episodes"]
    assert erasure.status == "done" and deleted > 0
    expect(page.get_by_role("row", name=f"Episodes deleted {deleted}")).to_be_visible()
    expect(page.locator("main")).not_to_contain_text("host:db-01")  # the subject is gone, only its hash is kept
    shoot(page, "32-admin-erasure-receipt")

    # Every other admin page loads without a script error or CSP violation.
    pages = [
        ("33-admin-policy", bank + "policy/", "Bank policy"),
        ("34-admin-bank-members", bank + "members/", "Members and roles"),
        ("35-admin-erasure-list", bank + "erasure/", "Erasure requests"),
        ("36-admin-defense", bank + "defense/", "Memory Defense"),
        ("37-admin-audit", bank + "audit/", "Audit log"),
        ("38-admin-tenant-settings", tenant + "settings/", "Tenant settings"),
        ("39-admin-tenant-members", tenant + "members/", "Tenant members"),
        ("40-admin-tenant-api-keys", tenant + "api-keys/", "Tenant API keys"),
        ("44-admin-tenant-erasure", tenant + "erasure/", "Tenant erasure requests"),
        ("41-admin-tenant-audit", tenant + "audit/", "Tenant audit log"),
    ]
    operator = site.users[Role.TENANT_ADMIN]
    operator.is_staff = True  # the installation's operators (with the manage-tenants permission) see every tenant
    operator.save(update_fields=["is_staff"])
    from django.contrib.auth.models import Permission

    operator.user_permissions.add(Permission.objects.get(codename="manage_tenants"))
    pages.append(("45-admin-staff-tenants", "/staff/tenants/", "Tenants"))
    for name, path, heading in pages:
        page.goto(path)
        expect(page.get_by_role("heading", name=heading, level=1)).to_be_visible()
        shoot(page, name)
    page.goto(tenant + "audit/")
    expect(page.locator("main")).to_contain_text("erasure.completed")
    # A bad policy value is refused next to its field.
    page.goto(bank + "policy/")
    page.get_by_label("Skepticism").fill("1.7")
    page.get_by_role("button", name="Save settings").click()
    expect(page.locator("#id_disposition__skepticism_error")).to_have_text(
        "disposition.skepticism must be between 0.0 and 1.0."
    )
    shoot(page, "42-admin-policy-error")
    refused = [e for e in watch.errors if "status of 400" in e]
    assert len(refused) == 1  # the refused form answers 400 (Chromium logs it); nothing else went wrong
    watch.errors.remove(refused[0])
    assert watch.errors == [], watch.errors


def test_a_viewer_trying_an_admin_page_gets_the_403_page(new_page, site):
    page = new_page(width=390, height=844)
    sign_in(page, site.users[Role.VIEWER].username, PASSWORD)
    expect(page.get_by_role("link", name="Bank policy")).to_have_count(0)
    response = page.goto(f"/t/{site.tenant.slug}/banks/{site.bank.slug}/settings/api-keys/")
    assert response.status == 403
    expect(page.get_by_role("heading", name="You don't have the role for this")).to_be_visible()
    expect(page.locator("main")).to_contain_text("This needs the bank admin role.")
    shoot(page, "43-admin-refused-viewer-phone")
