"""The demo data `make run` seeds: episodes, and beliefs plus a mental model once the chain ran."""

import pytest
from django.core.management import call_command

from beliefs.models import Belief, Episode, MentalModel


@pytest.mark.django_db(transaction=True)
def test_seed_demo_builds_beliefs_and_an_answered_mental_model(settings, tmp_path, eager_tasks):
    settings.DATA_DIR = tmp_path
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # safe to repeat
    assert Episode.objects.filter(bank__slug="ops").count() == 30
    benign = Belief.objects.get(bank__slug="ops", object="benign")
    assert benign.statement == "alert DiskLatencyHigh on db-01 is benign" and benign.proof_count == 2
    model = MentalModel.objects.get(bank__slug="ops", name="benign-alerts")
    assert model.status == "answered" and model.source_belief_ids == [benign.pk]
    assert (tmp_path / "demo-api-key").read_text().startswith("mh_")
