module Shop
  class Item
    def initialize(name)
      @name = name
    end

    def label
      @name.to_s
    end
  end
end
