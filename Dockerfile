# The Transformer Attention Explorer as a container: CPU torch, the shipped weights, one
# `python -m ui.serve` (streamlit run app.py, preloaded) on port 8501 with .streamlit/config.toml's production settings.
#   docker build -t attention-explorer .
#   docker run --rm -p 8501:8501 attention-explorer
# docs/hosting.md: running several replicas behind nginx (deploy/nginx.conf).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    # the models are small: more threads per request only fight each other under a class's load
    OMP_NUM_THREADS=1 \
    MKL_NUM_THREADS=1 \
    # Hugging Face models (requirements-hf.txt): off. To offer some, run with -e ATTN_HF=1 and
    # -e ATTN_HF_MODELS=name=/folder,... (unset: the packaged all-minilm-l6-v2); visitors pick
    # among those names, never a path (docs/hosting.md, "Security")
    ATTN_HF=0 \
    ATTN_HF_MAX_PARAMS=1000000000 \
    ATTN_HF_CACHE_MODELS=2 \
    ATTN_HF_CACHE_MB=1024 \
    ATTN_HF_CACHE_TTL=3600

# torch first, from PyTorch's CPU index: from PyPI the same pin pulls a multi-GB CUDA build
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu

WORKDIR /app
COPY requirements.txt .
RUN pip install -r requirements.txt

RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin explorer
# .dockerignore keeps out what the app does not run: .venv, .git, screenshots, bench/, drive/, tests/, docs/, deploy/
COPY --chown=explorer:explorer . .
USER explorer

# The in-browser model (ui/browser_model), served by the app from static/: onnxruntime-web's files
# come in the build context's static/ort/ (scripts/build-image runs ui/browser_model/install.sh first:
# this image has no npm), checked against their pinned hashes here; our models' ONNX graphs are exported
# in the image, from its own torch and weights, into the explorer's cache and copied with the
# tokenizer into static/models/ (a start finds them current: nothing exported while a class waits)
RUN cd static/ort && sha256sum --quiet --strict -c ../../ui/browser_model/runtime.sha256 \
    && mkdir -p ../browser_model && cp ../../ui/browser_model/*.js ../browser_model/
RUN python -m ui.browser_model --jobs 2 >/dev/null

EXPOSE 8501
# python:3.11-slim has no curl; Python's urllib asks Streamlit's own health endpoint
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).status == 200 else 1)"]

# python -m ui.serve: streamlit run app.py, with torch and the default model loaded as the server starts
CMD ["python", "-m", "ui.serve", "--server.port=8501", "--server.address=0.0.0.0"]
