export class LegacyWidget {
  constructor(root) {
    this.root = root;
    this.items = [];
  }

  mount() {
    this.root.querySelectorAll(".close").forEach((button) => {
      button.addEventListener("click", function () {
        // `this` is the clicked button here: Element.remove(), not the widget.
        this.remove();
      });
    });
    this.root.addEventListener("refresh", () => this.render());
  }

  render() {
    this.root.textContent = this.items.join(", ");
  }

  remove() {
    this.items = [];
    this.root.replaceChildren();
  }
}
