// A camera app's orientation in C++, with the proxy qdbusxml2cpp generates from
// org.orientationd.Orientation1.xml at build time: the interface supports only "normal",
// so it never turns; the icons turn by ContentRotation, and every OrientationWillChange
// is printed before the change it announces.
//
//     camera [BUS_ADDRESS]      (default: the system bus)
#include <QCoreApplication>
#include <QDBusConnection>
#include <QSocketNotifier>
#include <csignal>
#include <cstdio>
#include <sys/socket.h>
#include <unistd.h>

#include "camera.h"

static const QString Name = QStringLiteral("org.orientationd.Orientation1");

Camera::Camera(const QDBusConnection &bus, const QString &path, QObject *parent)
    : QObject(parent), client(Name, path, bus) {
    connect(&client, &OrgOrientationdOrientation1ClientInterface::OrientationWillChange, this, &Camera::willChange);
    // The generated proxy has no change signals for properties: PropertiesChanged of the
    // client object (sent to its owner only) carries the new values.
    QDBusConnection(bus).connect(Name, path, QStringLiteral("org.freedesktop.DBus.Properties"),
                                 QStringLiteral("PropertiesChanged"), this,
                                 SLOT(propertiesChanged(QString, QVariantMap, QStringList)));
}

void Camera::willChange(const QString &from, const QString &to, uint contentRotation) {
    std::printf("will-change %s -> %s content-rotation=%u\n", qPrintable(from), qPrintable(to), contentRotation);
    std::fflush(stdout);
}

void Camera::propertiesChanged(const QString &, const QVariantMap &changed, const QStringList &) {
    if (changed.contains(QStringLiteral("ContentRotation"))) {
        std::printf("content-rotation %u\n", changed.value(QStringLiteral("ContentRotation")).toUInt());
        std::fflush(stdout);
    }
}

static int signalPipe[2];

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    QDBusConnection bus = argc > 1 ? QDBusConnection::connectToBus(QString::fromLocal8Bit(argv[1]), QStringLiteral("orientationd"))
                                   : QDBusConnection::systemBus();
    if (!bus.isConnected()) {
        std::fprintf(stderr, "camera: %s\n", qPrintable(bus.lastError().message()));
        return 1;
    }
    OrgOrientationdOrientation1Interface manager(Name, QStringLiteral("/org/orientationd/Orientation1"), bus);
    QVariantMap options{{QStringLiteral("SupportedOrientations"), QStringList{QStringLiteral("normal")}}};
    QDBusPendingReply<QDBusObjectPath> created = manager.CreateClient(options);
    created.waitForFinished();
    if (created.isError()) {
        std::fprintf(stderr, "camera: %s\n", qPrintable(created.error().message()));
        return 1;
    }
    Camera camera(bus, created.value().path());
    QDBusPendingReply<> started = camera.client.Start();
    started.waitForFinished();
    if (started.isError()) {
        std::fprintf(stderr, "camera: %s\n", qPrintable(started.error().message()));
        return 1;
    }
    std::printf("state interface=%s content-rotation=%u\n", qPrintable(camera.client.interfaceOrientation()),
                camera.client.contentRotation());
    std::fflush(stdout);

    // SIGTERM and SIGINT end the event loop (through a socket pair, the Qt way).
    socketpair(AF_UNIX, SOCK_STREAM, 0, signalPipe);
    std::signal(SIGTERM, [](int) { char c = 1; (void)!write(signalPipe[0], &c, 1); });
    std::signal(SIGINT, [](int) { char c = 1; (void)!write(signalPipe[0], &c, 1); });
    QSocketNotifier notifier(signalPipe[1], QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, &app, &QCoreApplication::quit);
    int status = app.exec();
    camera.client.Close().waitForFinished();
    return status;
}
