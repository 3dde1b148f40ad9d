"""Server settings, read only from the environment (``TRESET_*``, plus ``DATABASE_URL``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

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
    redis_url: str | None = Field(
        default=None, description="Redis shared by several server processes (one lobby, tables owned by one process "
        "each, taken over when it dies); unset: one process on its own (server/game/cluster/)")
    cluster_lease_s: float = Field(default=3.0, gt=0.5, le=60.0, description="a table's lease in Redis: another "
                                   "process takes the table over this long after its owner stopped renewing it")
    move_timeout_s: float = 60.0
    reconnect_grace_s: float = 30.0
    max_message_bytes: int = 8192
    max_bot_message_bytes: int = Field(default=262144, description="bots' limit: an analysis is tens of KB")
    analysis_timeout_s: float = Field(default=600.0, description="a bot holding an analysis longer loses it")
    bot_token: str | None = Field(default=None, description="if set, the API token of the 'bot' account")
    bot_levels: str = Field(default="", description="comma-separated bot levels a table may ask for; empty: the "
                            "levels the bots announce (agent/levels.py) and server/levels.py's fallback")
    # ----- hardening (docs/security.md lists every figure) -----
    api_docs: bool = Field(default=False, description="serve /docs, /redoc and /openapi.json")
    allowed_origins: str = Field(
        default="", description="comma-separated origins a browser socket may come from; empty: the request's host")
    session_idle_days: float = Field(default=30.0, description="a session token unused this long expires")
    ws_auth_timeout_s: float = Field(default=10.0, description="a socket must send its 'auth' message within this")
    ws_frame_limit_bytes: int = Field(
        default=1 << 20, description="the transport's frame limit: bigger frames close the socket (1009) at once")
    ws_rate_per_s: float = Field(default=20.0, description="messages a person's socket may send per second")
    ws_rate_burst: int = Field(default=40, description="... in a burst")
    ws_abuse_close: int = Field(default=100, description="rate-limited messages in a row that close the socket")
    max_waiting_tables: int = Field(default=3, description="tables a user may have waiting for an opponent")
    max_playing_tables: int = Field(default=10, description="deals a user may be playing at once")
    pair_range: float = Field(default=200.0, ge=0, description="quick pairing: the rating difference accepted at "
                              "first (server/game/pairing/policy.py)")
    pair_range_per_s: float = Field(default=10.0, ge=0, description="... widened by this much each second waited")
    pair_range_max: float = Field(default=1000.0, ge=0, description="... up to this much")
    bot_offer_s: float = Field(default=30.0, ge=0, description="quick pairing: after this long waiting, the client "
                               "offers a bot of the player's level")
    login_per_account: int = Field(default=10, description="failed sign-ins per account from one address per "
                                   "auth window (a stranger's failures elsewhere do not count against the owner)")
    login_per_account_all: int = Field(
        default=50, description="failed sign-ins per account from every address per auth window; it refuses only "
        "an address with failures of its own on the account (docs/security.md)")
    auth_per_address: int = Field(default=30, description="sign-ins and registrations per address per auth window")
    auth_window_s: float = Field(default=300.0, description="the window of the three figures above")
    guests_per_address: int = Field(default=20, description="guest accounts per address per guest window")
    guest_window_s: float = Field(default=600.0, description="the window of guests_per_address")
    puzzle_requests: int = Field(default=120, description="puzzle requests (next, attempts) per user per puzzle window")
    puzzle_window_s: float = Field(default=60.0, description="the window of puzzle_requests")
    limits_prefix: str = Field(default="treset:limit:", description="the Redis keys of the limits above when "
                               "redis_url is set (then every process shares them)")
    hash_concurrency: int = Field(default=2, description="password hashes computed at once (argon2 is CPU-heavy)")
    ws_compression: bool = Field(
        default=True, description="permessage-deflate on the sockets: a table message shrinks from ~2 KB to ~0.7 KB, "
        "for about a quarter of the server's CPU per move (TRESET_WS_COMPRESSION=0 turns it off)")
    # ----- operations (docs/operations.md, "Metrics" and "Logs") -----
    log_format: Literal["text", "json"] = Field(
        default="text", description="json: one JSON object a line (time, level, logger, message, and the request, "
        "user and table ids where known)")
    log_probes: bool = Field(default=False, description="access-log /healthz, /readyz and /metrics (every few "
                             "seconds from probes and scrapers: hidden by default)")
    web_dir: Path = Field(
        default_factory=lambda: _default_web_dir(),
        description="the browser client served at /: the top-level web/ of a checkout, or the copy the wheel "
        "ships inside the package (server/web)",
    )

    @property
    def levels(self) -> list[str]:
        """Return ``TRESET_BOT_LEVELS`` as a list: the only bot levels a table may ask for (empty: any offered)."""
        return [lv for lv in self.bot_levels.split(",") if lv]


def _default_web_dir() -> Path:
    """Return the installed client (``server/web`` in a wheel) or, in a checkout, the top-level ``web/``."""
    here = Path(__file__).resolve().parent
    installed = here / "web"
    return installed if (installed / "index.html").exists() else here.parent / "web"


@lru_cache
def get_settings() -> Settings:
    """Return the process's settings (read once)."""
    return Settings()
