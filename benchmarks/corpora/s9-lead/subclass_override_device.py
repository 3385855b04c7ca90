"""A base model builds on the device its subclass chooses; the export subclass chooses Capture."""

from dispatch_lint import runtime as dispatch


class BaseModel:
    def __init__(self):
        self.device = self.choose_device()
        self.weight = dispatch.ones((2, 2), device=self.device)

    def choose_device(self):
        return dispatch.Autodiff(dispatch.NumPy())

    def forward(self, x):
        return (x @ self.weight).sum()


class ExportModel(BaseModel):
    def choose_device(self):
        return dispatch.Capture()


def fit(model):
    x = dispatch.ones((1, 2), device=model.device)
    return model.forward(x).backward()  # expect: DL001


def main() -> None:
    fit(BaseModel())
    fit(ExportModel())


if __name__ == "__main__":
    main()
