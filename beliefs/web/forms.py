"""Forms of the engine's administration pages."""

from __future__ import annotations

from django import forms

from beliefs.services.forget.mentions import MIN_ALIAS_CHARACTERS, alias_too_short


class ErasureForm(forms.Form):
    subject = forms.CharField(
        max_length=255,
        help_text="The episodes' subject exactly as retained (case does not matter), e.g. account:initech.",
    )
    aliases = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Other names and identifiers of the subject, one per line (e-mail, phone, account id), each with "
        "at least 4 letters or digits: their episodes are erased too and their mentions in other subjects' episodes "
        "are redacted in place to [erased].",
    )
    confirm = forms.BooleanField(
        label="I understand this cannot be undone: the subject's episodes and everything derived from them go.",
    )

    def clean_aliases(self) -> list[str]:
        """The same bounds as ``POST erasure-requests/``: at most 20 aliases of at most 255 characters, each with
        at least ``MIN_ALIAS_CHARACTERS`` letters or digits."""
        aliases = list(
            dict.fromkeys(line.strip() for line in self.cleaned_data["aliases"].splitlines() if line.strip())
        )
        if len(aliases) > 20:
            raise forms.ValidationError("At most 20 aliases.")
        if any(len(alias) > 255 for alias in aliases):
            raise forms.ValidationError("Each alias is at most 255 characters long.")
        if short := [alias for alias in aliases if alias_too_short(alias)]:
            raise forms.ValidationError(
                f"Too short to erase safely: {', '.join(short)}. An alias needs at least {MIN_ALIAS_CHARACTERS} "
                "letters or digits (or a phone number); a shorter one would redact every matching word."
            )
        return aliases

    def __init__(self, *args, banks=None, **kwargs):
        super().__init__(*args, **kwargs)
        if banks is not None:  # the tenant page: every bank at once, or one
            choices = [("", "Every bank of the tenant")] + [(b.slug, f"Only {b.name} ({b.slug})") for b in banks]
            self.fields["bank"] = forms.ChoiceField(choices=choices, required=False, label="Where")
            self.order_fields(["subject", "aliases", "bank", "confirm"])
