def envelope(data):
    return {"ok": True, "data": data}
