module Shop
  class Tag
    def label
      "tag"
    end
  end
end
