"""Mental models: a bank's standing questions, answered from beliefs and stored.

``mental_model_refresh`` does the work — selects beliefs (a structured filter when the
model has one, otherwise the beliefs closest in meaning to the question), writes the
cited answer and the beliefs used — so that reading a model is one row read. Models are
refreshed after every consolidation that changed a belief. When no belief supports an
answer the model says so explicitly instead of guessing.
"""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from beliefs.channels.vectors import closest
from beliefs.defense.apply import values_defend
from beliefs.models import Belief, Evidence, MentalModel
from memoryhub.embeddings import embed_query
from memoryhub.exceptions import MentalModelNameTaken, MentalModelNotFound

ANSWERABLE = (Belief.Status.ACTIVE, Belief.Status.CONTESTED, Belief.Status.STALE)
NO_ANSWER = "No supported answer: no belief in this bank supports an answer to this question yet."
FILTER_KEYS = {"predicate", "object", "subject_contains", "min_proof_count", "min_confidence", "statuses"}


def mental_model_create(
    *,
    bank: Bank,
    name: str,
    question: str,
    belief_filter: dict | None = None,
    max_beliefs: int = 10,
    actor: str | None = None,
) -> MentalModel:
    """Create a standing question and build its first answer (audited when created for ``actor``)."""
    question = values_defend(bank=bank, value=question, field="question")
    try:
        with transaction.atomic():
            MentalModel.objects.create(
                tenant_id=bank.tenant_id,
                bank=bank,
                name=name,
                question=question,
                belief_filter=belief_filter or {},
                max_beliefs=max_beliefs,
                question_embedding=embed_query(question),
            )
            if actor:
                audit_record(tenant=bank.tenant_id, bank=bank, action="mental_model.created",
                             target=f"mental_model:{name}", actor=actor)  # fmt: skip
    except IntegrityError as exc:
        raise MentalModelNameTaken(extra={"name": name}) from exc
    return mental_model_refresh(bank=bank, name=name)


def mental_model_delete(*, bank: Bank, name: str, actor: str | None = None) -> None:
    """Delete a standing question and its answer (audited when deleted for ``actor``)."""
    with transaction.atomic():
        deleted, _ = MentalModel.objects.filter(bank=bank, name=name).delete()
        if not deleted:
            raise MentalModelNotFound()
        if actor:
            audit_record(tenant=bank.tenant_id, bank=bank, action="mental_model.deleted",
                         target=f"mental_model:{name}", actor=actor)  # fmt: skip


def _selected_beliefs(bank: Bank, model: MentalModel) -> list[Belief]:
    spec = model.belief_filter or {}
    statuses = spec.get("statuses") or list(ANSWERABLE)
    beliefs = Belief.objects.filter(bank=bank, status__in=statuses).defer("search_vector")
    if spec.get("predicate"):
        beliefs = beliefs.filter(predicate=spec["predicate"])
    if spec.get("object"):
        beliefs = beliefs.filter(object__iexact=spec["object"])
    if spec.get("subject_contains"):
        beliefs = beliefs.filter(subject__icontains=spec["subject_contains"])
    if spec.get("min_proof_count"):
        beliefs = beliefs.filter(proof_count__gte=spec["min_proof_count"])
    if spec.get("min_confidence"):
        beliefs = beliefs.filter(confidence__gte=spec["min_confidence"])
    if any(spec.get(key) for key in ("predicate", "object", "subject_contains")):
        return list(beliefs.order_by("-confidence", "-proof_count", "id")[: model.max_beliefs])
    max_distance = 1 - settings.MEMORYHUB["DERIVED_MIN_SIMILARITY"]
    return list(
        closest(beliefs, field="embedding", query_vector=model.question_embedding, max_distance=max_distance)[
            : model.max_beliefs
        ]
    )


def belief_citation(belief: Belief) -> dict:
    """A belief as a citation: statement, strength and its most recent supporting quote."""
    evidence = belief.evidence.filter(stance=Evidence.Stance.SUPPORTS).order_by("-observed_at", "-id").first()
    return {
        "belief_id": belief.pk,
        "statement": belief.statement,
        "status": belief.status,
        "confidence": belief.confidence,
        "proof_count": belief.proof_count,
        "quote": evidence.quote if evidence else "",
        "episode_id": evidence.episode_id if evidence else None,
    }


def render_belief_line(citation: dict) -> str:
    return (
        f"- {citation['statement']} ({citation['status']}; {citation['proof_count']} supporting episodes; "
        f"confidence {citation['confidence']:.2f}) [belief {citation['belief_id']}]"
    )


def mental_model_refresh(*, bank: Bank, name: str) -> MentalModel:
    """Rebuild one model's stored answer from the bank's current beliefs."""
    with transaction.atomic():
        model = MentalModel.objects.select_for_update().filter(bank=bank, name=name).first()
        if model is None:
            raise MentalModelNotFound()
        citations = [belief_citation(belief) for belief in _selected_beliefs(bank, model)]
        citations = [c for c in citations if c["quote"]]  # never an uncited line
        model.citations = citations
        model.source_belief_ids = [c["belief_id"] for c in citations]
        if citations:
            model.status = MentalModel.Status.ANSWERED
            model.answer = "\n".join(render_belief_line(c) for c in citations)
        else:
            model.status = MentalModel.Status.UNSUPPORTED
            model.answer = NO_ANSWER
        model.refreshed_at = timezone.now()
        model.save()
    return model


def mental_models_refresh(*, bank: Bank) -> int:
    """Refresh every mental model of ``bank``; returns how many."""
    names = list(MentalModel.objects.filter(bank=bank).values_list("name", flat=True))
    for name in names:
        mental_model_refresh(bank=bank, name=name)
    return len(names)
