from django.contrib import admin

from beliefs.models import Episode, RetainBatch


@admin.register(Episode)
class EpisodeAdmin(admin.ModelAdmin):
    list_display = ["id", "bank", "source", "subject", "occurred_at", "recorded_at"]
    list_filter = ["bank", "source", "provenance"]
    search_fields = ["subject"]
    exclude = ["embedding"]
    readonly_fields = ["content_hash", "dedupe_key", "token_count", "batch", "extracted_at"]


@admin.register(RetainBatch)
class RetainBatchAdmin(admin.ModelAdmin):
    list_display = ["id", "bank", "mode", "status", "item_count", "created_count", "created_at"]
    list_filter = ["status", "mode"]
    exclude = ["items"]
