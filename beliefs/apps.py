from django.apps import AppConfig


class BeliefsConfig(AppConfig):
    name = "beliefs"
    verbose_name = "Memory"

    def ready(self):
        # These import models: only once the app registry is ready.
        from banks.hooks import register_content_counter, register_policy_change_handler, register_policy_page_status
        from beliefs.defense.apply import values_defend
        from beliefs.selectors.backlog import backlog_metrics
        from beliefs.selectors.beliefs import contested_beliefs_panel
        from beliefs.selectors.defense import defense_rescan_note
        from beliefs.selectors.overview import bank_content_counts
        from beliefs.services.defense.rescan import rescan_when_defense_tightened
        from beliefs.services.recall import runner
        from memoryhub.observability import register_scrape_collector
        from memoryhub.text_defense import register_text_defense
        from reviews.handlers import register_queue_panel

        register_scrape_collector(backlog_metrics)
        register_queue_panel(contested_beliefs_panel)
        register_policy_change_handler(rescan_when_defense_tightened)
        register_content_counter(bank_content_counts)
        register_policy_page_status(defense_rescan_note)
        register_text_defense(values_defend)  # banks and reviews scan what they store through memoryhub
        runner.install(self)  # recall's channel threads: started on first use, stopped at exit
