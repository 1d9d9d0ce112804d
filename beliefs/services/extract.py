"""Extract: the background stage that follows every retain.

Today it marks a batch's episodes as processed, which is what later stages (entity and
fact extraction, consolidation) hang off; it is idempotent, so a redelivered task is a
no-op.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from beliefs.models import Episode, RetainBatch


def episodes_extract(*, batch_id: int) -> int:
    """Process the unprocessed episodes of one batch; return how many were processed."""
    with transaction.atomic():
        processed = Episode.objects.filter(batch_id=batch_id, extracted_at__isnull=True).update(
            extracted_at=timezone.now()
        )
        RetainBatch.objects.filter(pk=batch_id).update(extraction_status=RetainBatch.Status.DONE)
    return processed
