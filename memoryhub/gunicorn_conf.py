"""gunicorn hooks: load the embedding model before a worker takes its first request."""


def post_worker_init(worker):
    from memoryhub.embeddings import warm_up

    seconds = warm_up()
    worker.log.info("embedding model loaded in %.1fs", seconds)
