"""Request dependencies shared by the route modules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request
from sqlalchemy.orm import Session

from server import repos
from server.models import User


def get_session(request: Request) -> Iterator[Session]:
    """Yield a database session for one request."""
    with request.app.state.sessions() as session:
        yield session


DB = Annotated[Session, Depends(get_session)]


def current_user(session: DB, authorization: Annotated[str | None, Header()] = None) -> User:
    """Return the user of the request's bearer token, or answer 401."""
    token = (authorization or "").removeprefix("Bearer ").strip()
    user = repos.user_for_token(session=session, token=token) if token else None
    if user is None:
        raise HTTPException(401, "sign in first (Authorization: Bearer TOKEN)")
    return user


CurrentUser = Annotated[User, Depends(current_user)]
