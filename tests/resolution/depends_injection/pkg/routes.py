from fastapi import Depends, FastAPI, Security

from pkg.auth import get_current_user
from pkg.db import get_db

app = FastAPI()


@app.get("/users")
def list_users(db=Depends(get_db)):
    return db.query("users")


@app.post("/users")
def create_user(payload: dict, db=Depends(get_db), user=Security(get_current_user)):
    if user.has_scope("users:write"):
        db.add(payload)
    return payload
