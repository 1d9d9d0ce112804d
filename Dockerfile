# MemoryHub server image: web (gunicorn), Celery workers and beat all run from it.
# No secrets are baked in: every key and password comes from the environment at run time.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false \
    MEMORYHUB_DATA_DIR=/var/lib/memoryhub

WORKDIR /app
# CPU-only torch first, so nothing below pulls a CUDA build.
RUN pip install "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu
COPY clients/python /app/clients/python
RUN pip install "/app/clients/python[mcp]"
# The whole checkout minus what .dockerignore leaves out (data, virtualenvs, secrets files).
COPY . /app
RUN pip install /app
# Static files are collected at build time; the throwaway values below exist only in this RUN step.
RUN DJANGO_SECRET_KEY=collectstatic-only \
    DATABASE_URL=postgres://build@unused/none MEMORYHUB_MAINTENANCE_DATABASE_URL=postgres://build2@unused/none \
    python manage.py collectstatic --noinput --verbosity 0

RUN useradd --system --uid 10001 --home /var/lib/memoryhub memoryhub \
    && mkdir -p /var/lib/memoryhub && chown memoryhub /var/lib/memoryhub
USER memoryhub
EXPOSE 8000
CMD ["gunicorn", "memoryhub.wsgi:application", "--bind", "0.0.0.0:8000", "--config", "python:memoryhub.gunicorn_conf"]
