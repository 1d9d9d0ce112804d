from django.apps import AppConfig


class BeliefsConfig(AppConfig):
    name = "beliefs"
    verbose_name = "Memory"

    def ready(self):
        from beliefs.selectors.backlog import backlog_metrics  # models are loaded only once the registry is ready
        from memoryhub.observability import register_scrape_collector

        register_scrape_collector(backlog_metrics)
