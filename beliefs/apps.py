from django.apps import AppConfig


class BeliefsConfig(AppConfig):
    name = "beliefs"
    verbose_name = "Memory"

    def ready(self):
        # These import models: only once the app registry is ready.
        from beliefs.selectors.backlog import backlog_metrics
        from beliefs.selectors.beliefs import contested_beliefs_panel
        from memoryhub.observability import register_scrape_collector
        from reviews.handlers import register_queue_panel

        register_scrape_collector(backlog_metrics)
        register_queue_panel(contested_beliefs_panel)
