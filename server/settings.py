"""Server settings, read only from the environment (``TRESET_*``, plus ``DATABASE_URL``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_SQLITE = Path("var") / "treset.sqlite3"


class Settings(BaseSettings):
    """Everything the server can be configured with."""

    model_config = SettingsConfigDict(env_prefix="TRESET_", extra="ignore")

    database_url: str = Field(
        default=f"sqlite:///{DEFAULT_SQLITE}",
        validation_alias=AliasChoices("DATABASE_URL", "TRESET_DATABASE_URL"),
        description="SQLAlchemy URL; PostgreSQL in production, an embedded SQLite file by default",
    )
    secret_key: str = "dev-secret-change-me"
    move_timeout_s: float = 60.0
    reconnect_grace_s: float = 30.0
    max_message_bytes: int = 8192
    bot_token: str | None = Field(default=None, description="if set, the API token of the 'bot' account")
    bot_levels: str = "easy,normal,strong"
    web_dir: Path = Path(__file__).resolve().parent.parent / "web"

    @property
    def levels(self) -> list[str]:
        """Return the bot levels a table may ask for."""
        return [lv for lv in self.bot_levels.split(",") if lv]


@lru_cache
def get_settings() -> Settings:
    """Return the process's settings (read once)."""
    return Settings()
