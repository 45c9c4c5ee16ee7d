from pkg.config import ConfigAttribute, Registry


class App:
    testing = ConfigAttribute[bool]("TESTING")

    def describe_flag(self):
        flag = ConfigAttribute[int]("FLAG")
        return flag.describe()

    def registry_of(self):
        return Registry[int].lookup("x")
