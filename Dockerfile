# The bot as a container image: `docker compose up -d` (compose.yaml), or see README.md,
# "Running with Docker". Documents go in /documents and the bot's own data in /data; settings
# come from the environment (compose passes .env), never from a file baked into the image.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

# Tesseract reads scanned documents (Russian and English).
RUN apt-get update \
    && apt-get install -y --no-install-recommends tesseract-ocr tesseract-ocr-rus tesseract-ocr-eng \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/*

# A user of its own, uid 1000 (the usual first user on a host, so a bind-mounted documents
# folder made by that user can take admins' uploads).
RUN groupadd --gid 1000 bot \
    && useradd --uid 1000 --gid bot --create-home --shell /usr/sbin/nologin bot \
    && mkdir -p /documents /data \
    && chown bot:bot /documents /data

# The dependencies, read from pyproject.toml alone, so this layer is rebuilt only when they
# change. They go into a virtual environment without pip of its own (the base image's pip
# installs into it); the build backend comes along, so installing our code needs no network.
WORKDIR /app
COPY pyproject.toml ./
RUN python -m venv --without-pip /opt/venv \
    && python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); print("\n".join(p["project"]["dependencies"] + p["build-system"]["requires"]))' >/tmp/requirements.txt \
    && python -m pip --python /opt/venv/bin/python install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# Our code (README.md is the package's description), installed without its dependencies.
COPY README.md LICENSE ./
COPY bot ./bot
COPY tools ./tools
RUN python -m pip --python /opt/venv/bin/python install --no-deps --no-build-isolation .
ENV PATH=/opt/venv/bin:$PATH

ENV SANDBOX_DIR=/documents \
    DATA_DIR=/data
VOLUME ["/documents", "/data"]
USER bot
WORKDIR /home/bot

# Cheap: the age of the heartbeat file the bot keeps in DATA_DIR, and a GET of /healthz where
# the bot serves it (WEBHOOK_LISTEN in webhook mode, METRICS_LISTEN when set); bot/healthcheck.py.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot.healthcheck"]

# Exec form: python is PID 1 and gets SIGTERM itself, so `docker stop` lets running questions
# finish (up to 8 s; give `docker stop` 15 s).
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot"]
