"""The demo data `make run` seeds: episodes, and beliefs plus a mental model once the chain ran."""

import io

import pytest
from django.core.management import call_command

from beliefs.models import Belief, Episode, MentalModel


@pytest.mark.django_db(transaction=True)
def test_seed_demo_builds_beliefs_and_an_answered_mental_model(settings, tmp_path, eager_tasks):
    settings.DATA_DIR = tmp_path
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # safe to repeat
    # 30 bundled episodes, a third dismissal that proves db-01's backup alert benign, and the churn page's
    # 7 offers with the 6 scored outcomes they were fed.
    assert Episode.objects.filter(bank__slug="ops").count() == 30 + 1 + 7 + 6
    benign = Belief.objects.get(bank__slug="ops", object="benign")
    assert benign.statement == "alert DiskLatencyHigh on db-01 is benign" and benign.proof_count == 3
    model = MentalModel.objects.get(bank__slug="ops", name="benign-alerts")
    assert model.status == "answered" and model.source_belief_ids == [benign.pk]
    assert (tmp_path / "demo-api-key").read_text().startswith("mh_")


@pytest.mark.django_db(transaction=True)
def test_seed_demo_creates_people_who_can_sign_in_and_decide_one_suppression_and_one_lesson(settings, tmp_path):
    from django.contrib.auth import get_user_model

    from banks.models import Bank
    from banks.permissions import Role, bank_roles
    from reviews.models import ReviewItem

    settings.DATA_DIR = tmp_path
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    call_command("seed_demo", stdout=io.StringIO())  # no second suppression, lesson or audit noise
    password = (tmp_path / "demo-analyst-password").read_text().strip()
    assert f"analyst / {password}" in out.getvalue()
    analyst = get_user_model().objects.get(username="analyst")
    assert analyst.check_password(password)
    bank = Bank.objects.get(slug="ops")
    assert bank_roles(analyst, bank.tenant) == {bank.pk: Role.REVIEWER}
    pending = ReviewItem.objects.filter(bank=bank, status="pending")
    assert sorted(pending.values_list("kind", flat=True)) == ["distillation", "suppression"]
    admin_password = (tmp_path / "demo-demo-admin-password").read_text().strip()
    demo_admin = get_user_model().objects.get(username="demo-admin")
    assert demo_admin.check_password(admin_password)
    assert bank_roles(demo_admin, bank.tenant) == {bank.pk: Role.TENANT_ADMIN}
