"""The background chain retain -> extract -> consolidate -> refresh mental models, and its recovery."""

from datetime import timedelta

import pytest
from celery.contrib.testing.worker import start_worker
from django.utils import timezone

from beliefs.models import Belief, Episode, EpisodeExtraction, Fact, MentalModel
from beliefs.services.mental_models import mental_model_create
from beliefs.services.retain import retain
from beliefs.tasks import decay_beliefs_task, resume_stalled_banks_task
from memoryhub.celery import app
from tests.beliefs.tasks.test_worker import wait_for
from tests.helpers.callers import make_caller
from tests.helpers.consolidation import T0, days, dismissal


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_real_worker_turns_retained_dismissals_into_a_belief_and_refreshes_mental_models():
    caller = make_caller()
    mental_model_create(bank=caller.bank, name="benign", question="what is benign?", belief_filter={"object": "benign"})
    assert MentalModel.objects.get(bank=caller.bank).status == "no_supported_answer"
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        items = [
            {
                "content": f"Analyst closed DiskIOHigh on db-3 as benign: backup run {n}.",
                "occurred_at": (T0 + days(n)).isoformat(),
                "metadata": {"event": "dismissal", "signature": "DiskIOHigh", "host": "db-3"},
            }
            for n in range(3)
        ]
        response = caller.client.post(caller.url("retain"), {"items": items}, format="json")
        assert response.status_code == 201
        # Recallable at once, before any background work reached it.
        assert Episode.objects.filter(bank=caller.bank).count() == 3
        assert wait_for(lambda: MentalModel.objects.get(bank=caller.bank).status == "answered")

    belief = Belief.objects.get(bank=caller.bank)
    assert belief.proof_count == 3 and belief.statement == "alert DiskIOHigh on db-3 is benign"
    assert MentalModel.objects.get(bank=caller.bank).source_belief_ids == [belief.pk]
    status = caller.client.get(caller.url("background")).json()
    assert status == {**status, "unextracted_episodes": 0, "unconsolidated_facts": 0, "lag_seconds": 0.0}


@pytest.mark.django_db(transaction=True)
def test_stalled_bank_recovers_by_itself_and_paused_bank_waits(eager_tasks):
    stalled, paused = make_caller(), make_caller()
    paused.bank.policy = {"background": {"paused": True}}
    paused.bank.save()
    app.conf.task_always_eager = False  # the broker "loses" the extraction tasks
    try:
        for caller in (stalled, paused):
            retain(bank=caller.bank, items=[dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(2)])
    finally:
        app.conf.task_always_eager = True
    app.control.purge()
    Episode.objects.update(recorded_at=timezone.now() - timedelta(hours=1))
    EpisodeExtraction.objects.update(recorded_at=timezone.now() - timedelta(hours=1))  # (the queue's copy of it)

    from django.conf import settings
    from django.test import Client

    scrape = {"HTTP_AUTHORIZATION": f"Bearer {settings.METRICS_ACCESS}"}  # the token /metrics needs by default
    metrics = Client().get("/metrics", **scrape).content.decode()
    lag = next(line for line in metrics.splitlines() if line.startswith("memoryhub_consolidation_lag_seconds"))
    assert float(lag.split()[-1]) >= 3600
    assert 'memoryhub_background_pending{stage="extraction"} 4.0' in metrics

    result = resume_stalled_banks_task.apply().result
    assert result == {"resumed": [stalled.bank.pk]}
    assert Belief.objects.get(bank=stalled.bank).proof_count == 2
    assert not Fact.objects.filter(bank=paused.bank).exists()
    assert EpisodeExtraction.objects.filter(bank=paused.bank, extracted_at__isnull=True).count() == 2


@pytest.mark.django_db(transaction=True)
def test_decay_task_runs_over_every_bank(eager_tasks):
    caller = make_caller()
    retain(bank=caller.bank, items=[dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(2)])
    belief = Belief.objects.get(bank=caller.bank)  # eager chain consolidated at wall-clock now: already old
    assert belief.status == "stale"
    Belief.objects.filter(pk=belief.pk).update(status="active", confidence=0.67)
    assert decay_beliefs_task.apply().result["changed"] >= 1
    assert Belief.objects.get(pk=belief.pk).status == "stale"
