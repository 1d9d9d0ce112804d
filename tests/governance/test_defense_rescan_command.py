"""``manage.py defense_rescan``: stored episodes are re-scanned with this version's detectors, per bank, audited."""

import io

import pytest
from django.core.management import call_command

from audit.models import AuditEvent
from beliefs.models import DefenseRescan, Episode
from tests.governance.helpers import columns_containing
from tests.helpers.callers import make_caller

ACCOUNT = "000123456789"


@pytest.mark.django_db(transaction=True)
def test_defense_rescan_redacts_what_an_earlier_version_stored_and_only_in_the_banks_asked_for(eager_tasks):
    from beliefs.services.retain import RetainItem
    from tests.helpers.consolidation import T0, remember

    asked, other = make_caller(), make_caller()
    for caller in (asked, other):
        remember(caller.bank, [RetainItem(content="Kim sent lunch photos.", occurred_at=T0)])
    # What an earlier version let through: stored as it was written, as a release without the detector kept it.
    for caller in (asked, other):
        Episode.objects.filter(bank=caller.bank).update(content=f"ACH routing 011000015, acct {ACCOUNT} for Kim.")
    assert len(columns_containing(ACCOUNT)) >= 1

    out = io.StringIO()
    call_command("defense_rescan", "--tenant", asked.tenant.slug, "--inline", stdout=out)

    assert f"{asked.tenant.slug}/{asked.bank.slug}: re-scan" in out.getvalue()
    assert "1 of 1 episodes redacted (bank_account_number 1)" in out.getvalue()
    rescan = DefenseRescan.objects.get(bank=asked.bank)
    assert rescan.status == "done" and rescan.kinds == {"bank_account_number": 1}
    assert Episode.objects.get(bank=asked.bank).content == (
        "ACH routing 011000015, acct [REDACTED:bank_account_number] for Kim."
    )
    # The other tenant's bank was not asked for: untouched, no re-scan.
    assert Episode.objects.get(bank=other.bank).content.endswith(f"acct {ACCOUNT} for Kim.")
    assert not DefenseRescan.objects.filter(bank=other.bank).exists()
    event = AuditEvent.objects.get(action="defense.rescan", bank=asked.bank)
    assert event.actor == "operator:manage.py defense_rescan"
