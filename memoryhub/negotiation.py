"""Content negotiation that always answers: JSON when the client asks for a type we do not produce.

A browser's ``Accept: text/html`` or a stray ``?format=`` gets the JSON answer, never a
406, a 404 or a crash in an HTML renderer.
"""

from __future__ import annotations

from django.http import Http404
from rest_framework.exceptions import NotAcceptable
from rest_framework.metadata import SimpleMetadata
from rest_framework.negotiation import DefaultContentNegotiation


class JsonFallbackNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except (NotAcceptable, Http404):
            return renderers[0], renderers[0].media_type


class RouteMetadata(SimpleMetadata):
    """``OPTIONS``: the route's name, description and media types, without introspecting serializers
    (our views parse input explicitly, so there is no ``serializer_class`` to describe)."""

    def determine_metadata(self, request, view):
        return {
            "name": view.get_view_name(),
            "description": view.get_view_description(),
            "renders": [renderer.media_type for renderer in view.renderer_classes],
            "parses": [parser.media_type for parser in view.parser_classes],
            "allowed_methods": view.allowed_methods,
        }
