"""``GET banks/{bank}/export`` (a JSON-lines stream) and ``POST banks/{bank}/import``."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from audit.services import actor_of
from banks.scoping import BankScopedAPIView, bank_for_caller
from beliefs.selectors.episodes import episode_list
from memoryhub.exceptions import ImportFormatUnknown, ImportTrustRequiresAdmin, ScopeRequired
from memoryhub.serializers import StrictInputSerializer
from portability.formats import FORMATS
from portability.services import importing
from portability.services.exporting import bank_export
from portability.services.importing import bank_import, request_lines

NDJSON = "application/x-ndjson"


class ExportParamsSerializer(StrictInputSerializer):
    from_query_string = True
    embeddings = serializers.BooleanField(required=False, default=True)


class ImportParamsSerializer(StrictInputSerializer):
    from_query_string = True
    # Not "format": DRF reads that query parameter to pick a renderer.
    source_format = serializers.CharField(required=False, default="memoryhub")
    line_offset = serializers.IntegerField(required=False, default=0, min_value=0)
    batch_size = serializers.IntegerField(required=False, default=500, min_value=1, max_value=5000)
    apply_settings = serializers.BooleanField(required=False, default=False)
    trust_file = serializers.BooleanField(required=False, default=False)


class ImportCountsSerializer(serializers.Serializer):
    format = serializers.CharField()
    trusted = serializers.BooleanField(help_text="The file was trusted (trust_file by an admin).")
    lines = serializers.IntegerField()
    records = serializers.IntegerField()
    batches = serializers.IntegerField()
    created = serializers.DictField(child=serializers.IntegerField())
    duplicates = serializers.DictField(child=serializers.IntegerField())
    redacted = serializers.DictField(child=serializers.IntegerField())
    held_back = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Records of an untrusted file not written as they are: derived records the workers recompute "
        "from the episodes, review decisions (the items arrive pending), plays (they arrive as pending lessons).",
    )
    settings_applied = serializers.BooleanField()
    extraction_queued = serializers.BooleanField()


class BankExportApi(BankScopedAPIView):
    """The bank's whole memory as JSON lines: episodes, facts, beliefs with evidence and versions, and more."""

    method_access = {"GET": "admin"}

    def scoped_get_queryset(self):
        return episode_list(bank=self.bank)

    @extend_schema(
        parameters=[OpenApiParameter("embeddings", bool, description="Include vectors (default true).")],
        responses={(200, NDJSON): OpenApiResponse(OpenApiTypes.STR, description="One JSON record per line.")},
    )
    def get(self, request, bank_slug: str):
        params = ExportParamsSerializer.parse(request.query_params.dict())
        lines = bank_export(bank=self.bank, include_embeddings=params["embeddings"], actor=actor_of(request))
        response = StreamingHttpResponse(lines, content_type=NDJSON)
        response["Content-Disposition"] = f'attachment; filename="{self.bank.slug}.memoryhub.jsonl"'
        return response


class BankImportApi(BankScopedAPIView):
    """Import JSON lines (a MemoryHub export, plain retain items, or mem0 memories) in all-or-nothing batches.

    The file is untrusted unless an admin passes ``trust_file=true``: see ``portability.services.importing``.
    """

    def scoped_get_queryset(self):
        return episode_list(bank=self.bank)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "source_format", str, enum=list(FORMATS), description="memoryhub (default), jsonl or mem0."
            ),
            OpenApiParameter("line_offset", int, description="Added to reported line numbers (for chunked uploads)."),
            OpenApiParameter("batch_size", int, description="Lines per all-or-nothing batch (default 500)."),
            OpenApiParameter("apply_settings", bool, description="Copy the export's bank settings (admin)."),
            OpenApiParameter(
                "trust_file",
                bool,
                description="Admin only, audited: take beliefs, evidence, facts, plays, review decisions and "
                "recording times from the file as they are (moving a bank you exported). Without it they are "
                "derived again from the episodes and decided again by people.",
            ),
        ],
        request={NDJSON: OpenApiTypes.STR},
        responses=ImportCountsSerializer,
    )
    def post(self, request, bank_slug: str):
        params = ImportParamsSerializer.parse(request.query_params.dict())
        source_format = params.pop("source_format")
        if source_format not in FORMATS:
            raise ImportFormatUnknown(extra={"source_format": source_format[:40], "allowed": list(FORMATS)})
        admin = _caller_is_admin(request, bank_slug)
        if params["apply_settings"] and not admin:
            bank_for_caller(request, bank_slug, "admin")  # copying a policy is an admin change: the usual 403
        if params["trust_file"] and not admin:
            raise ImportTrustRequiresAdmin()
        # The body is read as a stream of bounded lines, never as a whole; only an admin may send a large one.
        max_body_bytes = None if admin else importing.MAX_BODY_BYTES
        lines = request_lines(request._request, content_length=_content_length(request), max_body_bytes=max_body_bytes)
        result = bank_import(
            bank=self.bank,
            lines=lines,
            format=source_format,
            max_body_bytes=max_body_bytes,
            actor=actor_of(request),
            **params,
        )
        return Response(ImportCountsSerializer(result.as_dict()).data)


def _caller_is_admin(request, bank_slug: str) -> bool:
    """Whether the caller holds the admin scope on this bank (a tenant admin, or a key with ``admin``)."""
    try:
        bank_for_caller(request, bank_slug, "admin")
    except (PermissionDenied, ScopeRequired):  # a person without the role, a key without the scope
        return False
    return True


def _content_length(request) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0
