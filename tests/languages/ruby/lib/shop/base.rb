module Shop
  class Base
  end
end
