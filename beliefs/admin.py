"""Tenant memory in the admin site: read-only, and every list and detail page audited in the tenant it shows.

Memory changes through the product's services only (retain, review, erasure, quarantine release
in the dashboard or API), which check policy and write their own audit events; an operator who
reads a tenant's episodes here leaves ``admin.viewed`` in that tenant's audit log.
"""

from django.contrib import admin

from banks.admin import ReadOnlyAdmin
from beliefs.models import Belief, BeliefVersion, Episode, Evidence, Fact, MentalModel, RetainBatch


@admin.register(Episode)
class EpisodeAdmin(ReadOnlyAdmin):
    list_display = ["id", "bank", "source", "subject", "occurred_at", "recorded_at"]
    list_filter = ["bank", "source", "provenance"]
    search_fields = ["subject"]
    exclude = ["embedding"]
    readonly_fields = ["content_hash", "dedupe_key", "token_count", "batch"]


@admin.register(RetainBatch)
class RetainBatchAdmin(ReadOnlyAdmin):
    list_display = ["id", "bank", "mode", "status", "item_count", "created_count", "created_at"]
    list_filter = ["status", "mode"]
    exclude = ["items"]


@admin.register(Fact)
class FactAdmin(ReadOnlyAdmin):
    list_display = ["id", "bank", "statement", "extractor", "valid_at", "invalid_at", "consolidated_at"]
    list_filter = ["extractor", "functional", "negated"]
    search_fields = ["statement"]
    exclude = ["embedding"]
    raw_id_fields = ["episode", "invalidated_by"]
    readonly_fields = ["quote", "quote_start", "quote_end", "created_at", "expired_at"]


class EvidenceInline(admin.TabularInline):
    model = Evidence
    fields = ["stance", "episode", "quote", "weight", "observed_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False


class BeliefVersionInline(admin.TabularInline):
    model = BeliefVersion
    fields = ["version", "cause", "new_status", "new_confidence", "new_proof_count", "effective_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Belief)
class BeliefAdmin(ReadOnlyAdmin):
    """Beliefs change through consolidation and review only."""

    list_display = ["id", "bank", "statement", "status", "confidence", "proof_count", "last_confirmed_at"]
    list_filter = ["status"]
    search_fields = ["statement"]
    exclude = ["embedding"]
    inlines = [EvidenceInline, BeliefVersionInline]


@admin.register(MentalModel)
class MentalModelAdmin(ReadOnlyAdmin):
    list_display = ["name", "bank", "status", "refreshed_at"]
    exclude = ["question_embedding"]
    readonly_fields = ["status", "answer", "citations", "source_belief_ids", "refreshed_at"]
