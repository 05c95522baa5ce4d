// A camera app's orientation in C++ with QtDBus (see camera.cpp).
#pragma once

#include <QObject>
#include <QVariantMap>
#include <QStringList>

#include "orientationd_proxy.h"

class Camera : public QObject {
    Q_OBJECT
public:
    Camera(const QDBusConnection &bus, const QString &path, QObject *parent = nullptr);
    OrgOrientationdOrientation1ClientInterface client;

private slots:
    void willChange(const QString &from, const QString &to, uint contentRotation);
    void propertiesChanged(const QString &interface, const QVariantMap &changed, const QStringList &invalidated);
};
