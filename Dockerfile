# One image for the API (uvicorn) and the sync workers (celery): docker-compose.yml picks the
# command. Python 3.11 and git (mirrors are git clones); grammars ship as wheels. The extras are
# the server, the Neo4j driver and the workers (the core alone is the CLI and MCP over stdio).
FROM python:3.11-slim-bookworm
ARG EXTRAS=server,neo4j,workers

RUN apt-get update \
    && apt-get install -y --no-install-recommends git ca-certificates openssh-client \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY platform ./platform
COPY api ./api
COPY workers ./workers
RUN pip install --no-cache-dir ".[${EXTRAS}]"

RUN useradd --create-home --uid 10001 cartograph \
    && mkdir -p /data && chown cartograph /data
USER cartograph
ENV CARTOGRAPH_DATA=/data \
    PYTHONUNBUFFERED=1
VOLUME ["/data"]
EXPOSE 8000

CMD ["uvicorn", "--factory", "cartograph.api.app:app_from_environment", \
     "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
