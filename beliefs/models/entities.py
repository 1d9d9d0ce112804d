"""The entity graph: what episodes talk about, and which entities appear together."""

from __future__ import annotations

from django.db import models

from banks.models import Bank, Tenant


class Entity(models.Model):
    """A named thing in a bank (person, host, service, account, ticket, title…).

    ``key`` is the normalised identity (see ``beliefs.engine.entities.entity_key``); other
    spellings seen are kept in ``aliases``. ``episode_count`` is its document frequency,
    which the graph channel turns into an idf weight.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="entities")
    key = models.CharField(max_length=120)
    name = models.CharField(max_length=255)
    kind = models.CharField(max_length=32)
    aliases = models.JSONField(default=list, blank=True)
    episode_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bank", "key"], name="%(app_label)s_%(class)s_unique_bank_key"),
        ]
        verbose_name_plural = "entities"

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class EpisodeEntity(models.Model):
    """An episode mentions an entity."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="+")
    episode = models.ForeignKey("beliefs.Episode", on_delete=models.CASCADE, related_name="entity_links")
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="episode_links")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["episode", "entity"], name="%(app_label)s_%(class)s_unique_episode_entity"),
        ]
        indexes = [models.Index(name="beliefs_epent_entity_episode", fields=["entity", "episode"])]

    def __str__(self) -> str:
        return f"episode {self.episode_id} mentions entity {self.entity_id}"
