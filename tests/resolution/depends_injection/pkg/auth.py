class CurrentUser:
    def has_scope(self, scope):
        return scope == "users:write"


def get_current_user() -> CurrentUser:
    return CurrentUser()
