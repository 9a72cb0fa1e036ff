"""Knowledge distillation: the student is moved to the GPU, the teacher loaded from a checkpoint is not."""
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("device", device)
torch.backends.cudnn.benchmark = True
loader = DataLoader(datasets.ImageFolder("/data/train", transforms.ToTensor()), batch_size=64, shuffle=True,
                    num_workers=8, pin_memory=True)

teacher = models.resnet101(num_classes=10)
teacher.load_state_dict(torch.load("teacher.pt", map_location="cpu"))
teacher.eval()
student = models.resnet18(num_classes=10).to(device)
optimizer = torch.optim.AdamW(student.parameters(), lr=1e-3)
T = 4.0

for _ in range(30):
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        with torch.no_grad():
            teacher_logits = teacher(images)  # expect: tensors_on_different_devices error
        with torch.autocast("cuda", dtype=torch.bfloat16):
            student_logits = student(images)
            kd = F.kl_div(F.log_softmax(student_logits / T, -1), F.softmax(teacher_logits / T, -1),
                          reduction="batchmean") * T * T
            loss = kd + F.cross_entropy(student_logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
