class UserRepository:
    def get(self, user_id):
        return {"id": user_id}


class Cache:
    def get(self, key):
        return None
