from django.apps import AppConfig


class BeliefsConfig(AppConfig):
    name = "beliefs"
    verbose_name = "Memory"

    def ready(self):
        # These import models: only once the app registry is ready.
        from beliefs.defense.apply import values_defend
        from beliefs.selectors.backlog import backlog_metrics
        from beliefs.selectors.beliefs import contested_beliefs_panel
        from memoryhub.observability import register_scrape_collector
        from memoryhub.text_defense import register_text_defense
        from reviews.handlers import register_queue_panel

        register_scrape_collector(backlog_metrics)
        register_queue_panel(contested_beliefs_panel)
        register_text_defense(values_defend)  # banks and reviews scan what they store through memoryhub
