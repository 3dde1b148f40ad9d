# One image for the server and the agent; docker-compose.yml picks the command.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY tressette tressette
COPY agent agent
COPY server server
COPY web web
COPY treset treset
COPY migrations migrations
RUN pip install --no-cache-dir .
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
CMD ["treset", "serve", "--host", "0.0.0.0", "--port", "8000"]
